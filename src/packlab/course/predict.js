// A predict question's view in JupyterLab (an anywidget module: packlab.course.predict).
// Each part of the question is a labelled field (a text box, or a radio group named by its
// prompt); Commit sends the learner's answers to the kernel, which replies with the verdict
// (read out by a polite live region) and only then with the answer. Once committed the
// fields are locked. A presenter's session adds a button that opens the answer at once.
const OWN_KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End",
  " ", "Enter", "Backspace", "Delete"]);

function render({ model, el }) {
  const id = "packlab-predict-" + Math.random().toString(36).slice(2);
  el.classList.add("packlab-predict");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", "Your prediction");
  el.style.cssText = "margin:4px 0;padding:4px 8px;border-left:4px solid #0072B2;" +
    "background:#F2F7FB";
  // Typing in a field is the learner's: keys go no further than the widget, so JupyterLab does
  // not take them as notebook commands (Enter commits, as a form would).
  el.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target.tagName === "INPUT" &&
        event.target.type === "text") {
      event.preventDefault();
      commit.click();
    }
    if (OWN_KEYS.has(event.key) || event.key.length === 1) event.stopPropagation();
  });

  const title = document.createElement("p");
  title.innerHTML = "<b>Your prediction.</b> Answer, commit, then see.";
  const fields = [];
  const given = () => fields.map((field) => field());
  const parts = model.get("asks").map((ask, index) => {
    const fieldId = `${id}-${index}`;
    if (ask.kind === "choice") {
      const set = document.createElement("fieldset");
      set.className = "packlab-predict-ask";
      const legend = document.createElement("legend");
      legend.innerHTML = ask.prompt;
      set.append(legend);
      ask.options.forEach((text, option) => {
        const label = document.createElement("label");
        label.style.display = "block";
        const radio = document.createElement("input");
        radio.type = "radio";
        radio.name = fieldId;
        radio.value = ask.values[option];
        const words = document.createElement("span");
        words.innerHTML = " " + text;
        label.append(radio, words);
        set.append(label);
      });
      fields.push(() => {
        const picked = set.querySelector("input:checked");
        return picked ? picked.value : "";
      });
      return set;
    }
    const line = document.createElement("p");
    line.className = "packlab-predict-ask";
    const label = document.createElement("label");
    label.htmlFor = fieldId;
    label.innerHTML = ask.prompt + " ";
    const input = document.createElement("input");
    input.id = fieldId;
    input.type = "text";
    input.size = 24;
    input.autocomplete = "off";
    input.inputMode = ask.kind === "number" ? "decimal" : "text";
    line.append(label, input);
    fields.push(() => input.value);
    return line;
  });

  const commit = document.createElement("button");
  commit.type = "button";
  commit.textContent = "Commit my prediction";
  commit.className = "jupyter-widgets jupyter-button widget-button mod-primary";
  commit.style.width = "auto";
  commit.addEventListener("click", () => {
    model.set("given", given());
    model.set("commits", model.get("commits") + 1);
    model.save_changes();
  });
  const buttons = [commit];
  if (model.get("presenter")) {
    const open = document.createElement("button");
    open.type = "button";
    open.textContent = "Presenter: open without a prediction";
    open.className = "jupyter-widgets jupyter-button widget-button";
    open.style.width = "auto";
    open.addEventListener("click", () => {
      model.set("opens", model.get("opens") + 1);
      model.save_changes();
    });
    buttons.push(open);
  }

  const verdict = document.createElement("div");
  verdict.className = "packlab-predict-verdict";
  verdict.setAttribute("aria-live", "polite");
  const answer = document.createElement("div");
  answer.className = "packlab-predict-answer";
  const lock = () => {
    if (!model.get("committed")) return;
    el.querySelectorAll("input").forEach((input) => { input.disabled = true; });
    commit.disabled = true;
  };
  const update = () => {
    verdict.innerHTML = model.get("verdict");
    answer.innerHTML = model.get("answer");
    answer.hidden = !model.get("answer");
    lock();
  };
  model.on("change:verdict", update);
  model.on("change:answer", update);
  model.on("change:committed", update);
  update();
  el.append(title, ...parts, ...buttons, verdict, answer);
}

export default { render };
