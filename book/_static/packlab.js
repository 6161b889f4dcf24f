/* The packlab book's own script. Jupyter Book adds a <script> for every .js file in _static/ to
   every page (src/packlab/course/book.py copies this folder into the book's source).

   1. The menu buttons work. pydata-sphinx-theme and sphinx-book-theme each bind their sidebar
      toggles to the FIRST `.primary-toggle` / `.secondary-toggle` of the page, which is the
      pydata header's own button, hidden in this theme; the button a reader sees (in the article
      header) had no listener, so ☰ did nothing. A click on a visible one now clicks the first.
   2. Code keeps its indentation when a long line wraps: each line of a code cell becomes a
      block whose wrapped continuation is indented under the line's own start.
   3. Printed tables scroll inside their box instead of wrapping: an output whose lines have
      columns (runs of spaces inside a line) is marked `packlab-table`.
   4. A tap on a figure shown smaller than it was drawn opens it at full size, over the page.
   5. Each figure sits in a box of its own, which scrolls on a phone (packlab.css): there the
      figure keeps the size it was drawn at, its text readable.
   6. A predict question (packlab.course.predict) takes the reader's answers first: Commit judges
      them against the sealed data the page carries, says so in a live region, locks the form
      and only then shows the answer (the same rules as the kernel's: a number's grouping and a
      text's case, quotes and brackets do not matter). */
(function () {
  "use strict";

  function forwardToggles(kind) {
    const all = document.querySelectorAll("." + kind);
    if (all.length < 2) return;
    const bound = all[0];
    all.forEach((button, index) => {
      if (index === 0) return;
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        bound.click();
      });
    });
  }

  /* The text of `pre` as lines, each a list of [text, wrappers], wrappers being the element
     ancestors (outermost first) that coloured the text. */
  function linesOf(pre) {
    const lines = [[]];
    function walk(node, wrappers) {
      node.childNodes.forEach((child) => {
        if (child.nodeType === Node.TEXT_NODE) {
          child.textContent.split("\n").forEach((piece, index) => {
            if (index > 0) lines.push([]);
            if (piece) lines[lines.length - 1].push([piece, wrappers]);
          });
        } else if (child.nodeType === Node.ELEMENT_NODE) {
          walk(child, wrappers.concat([child]));
        }
      });
    }
    walk(pre, []);
    if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();
    return lines;
  }

  function hangingIndent(pre) {
    const lines = linesOf(pre);
    const out = document.createDocumentFragment();
    lines.forEach((pieces) => {
      const text = pieces.map((p) => p[0]).join("");
      const indent = text.length - text.trimStart().length;
      const line = document.createElement("span");
      line.className = "packlab-line";
      line.style.paddingLeft = indent + 2 + "ch";
      line.style.textIndent = -(indent + 2) + "ch";
      pieces.forEach(([piece, wrappers]) => {
        let node = document.createTextNode(piece);
        for (let i = wrappers.length - 1; i >= 0; i -= 1) {
          const copy = wrappers[i].cloneNode(false);
          copy.appendChild(node);
          node = copy;
        }
        line.appendChild(node);
      });
      line.appendChild(document.createTextNode("\n"));
      out.appendChild(line);
    });
    pre.replaceChildren(out);
    pre.classList.add("packlab-wrapped");
  }

  function isTable(pre) {
    const lines = pre.textContent.split("\n").filter((line) => line.trim());
    const columned = lines.filter((line) => /\S {2,}\S/.test(line.trim()));
    return lines.length >= 2 && columned.length >= 2;
  }

  function enlargeable(img) {
    if (img.closest("a")) return;
    img.classList.add("packlab-zoomable");
    img.setAttribute("title", "Tap to see it at full size");
    img.addEventListener("click", () => {
      if (img.naturalWidth <= img.getBoundingClientRect().width + 1) return;
      const box = document.createElement("div");
      box.className = "packlab-zoom";
      box.setAttribute("role", "dialog");
      box.setAttribute("aria-label", "The figure at full size (tap to close)");
      const big = document.createElement("img");
      big.src = img.currentSrc || img.src;
      big.alt = img.alt;
      box.appendChild(big);
      box.addEventListener("click", () => box.remove());
      document.addEventListener("keydown", function close(event) {
        if (event.key === "Escape") {
          box.remove();
          document.removeEventListener("keydown", close);
        }
      });
      document.body.appendChild(box);
    });
  }

  /* The figure's own box; under it, while the figure is wider than the box, a note that says
     so (a picture's opaque pixels would hide a shadow at the box's edge). */
  function scrollBox(img) {
    if (img.closest("a, .packlab-scroll")) return;
    const box = document.createElement("div");
    box.className = "packlab-scroll";
    img.replaceWith(box);
    box.appendChild(img);
    const note = document.createElement("p");
    note.className = "packlab-scroll-note";
    note.textContent = "→ Wider than your screen: swipe sideways for the rest of the figure.";
    box.after(note);
    const update = () => {
      note.hidden = box.scrollWidth <= box.clientWidth + 1;
    };
    if (img.complete) update();
    img.addEventListener("load", update);
    window.addEventListener("resize", update);
  }

  /* The sealed data of a predict form: base64 of UTF-8 JSON (a seal, not a lock). */
  function unseal(form) {
    const bytes = Uint8Array.from(atob(form.dataset.packlabSealed), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  }

  function matches(ask, given) {
    const text = given.trim();
    if (!text) return false;
    if (ask.kind === "number") {
      const number = Number(text.replace(/[,_\s]/g, ""));
      return !Number.isNaN(number) && ask.accepted.some((a) => Number(a) === number);
    }
    if (ask.kind === "text") {
      const words = text.toLowerCase().replace(/[^a-z0-9/_-]+/g, " ").trim().split(/\s+/);
      return ask.accepted.includes(words.join(" "));
    }
    return ask.accepted.includes(text);
  }

  function givenIn(form, index) {
    const field = form.querySelectorAll(".packlab-predict-ask")[index];
    const picked = field.querySelector("input[type=radio]:checked");
    if (picked) return picked.value;
    const box = field.querySelector("input[type=text]");
    return box ? box.value : "";
  }

  function verdictItem(ask, given) {
    const right = matches(ask, given);
    const item = document.createElement("li");
    const word = document.createElement("b");
    word.textContent = right ? "✓ Matches." : "✗ Does not match.";
    word.style.color = right ? "#166534" : "#9a3412";
    const prompt = document.createElement("span");
    prompt.innerHTML = " " + ask.prompt + " You said ";
    const said = document.createElement("code");
    said.textContent = given;
    const rest = document.createElement("span");
    rest.innerHTML = "; the answer is <code></code>. " + ask.why;
    rest.querySelector("code").textContent = ask.answer;
    item.append(word, prompt, said, rest);
    return [item, right];
  }

  function predictForm(form) {
    const data = unseal(form);
    const verdict = form.querySelector(".packlab-predict-verdict");
    const answer = form.querySelector(".packlab-predict-answer");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (form.dataset.packlabCommitted) return;
      const given = data.asks.map((_, index) => givenIn(form, index));
      if (given.some((text) => !text.trim())) {
        verdict.innerHTML = "<p><i>Answer every part first, then commit.</i></p>";
        return;
      }
      const list = document.createElement("ul");
      list.className = "packlab-predict-verdicts";
      const rights = data.asks.map((ask, index) => {
        const [item, right] = verdictItem(ask, given[index]);
        list.append(item);
        return right;
      });
      verdict.replaceChildren(list);
      form.dataset.packlabCommitted = "1";
      form.querySelectorAll("input, button").forEach((input) => { input.disabled = true; });
      answer.innerHTML = data.answer;
      answer.hidden = false;
      try {  // the reader's own count, in this browser only
        const kept = JSON.parse(localStorage.getItem("packlab-predictions") || "{}");
        const id = form.dataset.packlabQuestion;
        if (!(id in kept)) kept[id] = rights.every(Boolean);
        localStorage.setItem("packlab-predictions", JSON.stringify(kept));
      } catch (error) { /* storage off: the verdict is still shown */ }
    });
  }

  function ready() {
    document.querySelectorAll("form.packlab-predict[data-packlab-sealed]").forEach(predictForm);
    forwardToggles("primary-toggle");
    forwardToggles("secondary-toggle");
    document.querySelectorAll("main .cell_input pre, main div.highlight pre").forEach((pre) => {
      if (!pre.closest(".cell_output")) hangingIndent(pre);
    });
    document.querySelectorAll("main .cell_output pre").forEach((pre) => {
      if (isTable(pre)) pre.classList.add("packlab-table");
      else hangingIndent(pre);
    });
    document.querySelectorAll("main img").forEach(scrollBox);
    document.querySelectorAll("main img").forEach(enlargeable);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
