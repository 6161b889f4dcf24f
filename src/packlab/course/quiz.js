// The multiple-choice check's view in JupyterLab (an anywidget module: packlab.course.quiz).
// A radio group named by its question, native radios sharing one name (the arrow keys move
// between them), a Check button, and the verdict in a polite live region, so a screen reader
// reads it out. The options and the verdict arrive as HTML the kernel rendered from markdown.
const QUIZ_KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End",
  " ", "Enter"]);

function render({ model, el }) {
  const id = "packlab-quiz-" + Math.random().toString(36).slice(2);
  el.classList.add("packlab-quiz");
  // The keys that move through the options or press a button are the quiz's: they go no
  // further, so JupyterLab's notebook (listening where keydown bubbles) does not take ArrowDown
  // to select the next cell. Every other key (Ctrl+S, Escape) still reaches JupyterLab.
  el.addEventListener("keydown", (event) => {
    if (QUIZ_KEYS.has(event.key)) event.stopPropagation();
  });

  const question = document.createElement("div");
  question.id = id + "-question";
  question.className = "packlab-quiz-question";
  question.style.fontWeight = "600";
  question.innerHTML = model.get("question_html");

  const group = document.createElement("div");
  group.setAttribute("role", "radiogroup");
  group.setAttribute("aria-labelledby", question.id);
  group.style.cssText = "display:flex;flex-direction:column;gap:4px;margin:4px 0 8px";
  model.get("options_html").forEach((text, index) => {
    const label = document.createElement("label");
    label.style.cssText = "display:flex;gap:6px;align-items:baseline;cursor:pointer";
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = id;
    radio.value = String(index);
    radio.checked = model.get("picked") === index;
    radio.addEventListener("change", () => {
      model.set("picked", index);
      model.save_changes();
    });
    const words = document.createElement("span");
    words.innerHTML = text;
    label.append(radio, words);
    group.append(label);
  });

  const button = document.createElement("button");
  button.type = "button";
  button.textContent = "Check";
  button.className = "jupyter-widgets jupyter-button widget-button mod-primary";
  button.addEventListener("click", () => {
    model.set("checks", model.get("checks") + 1);
    model.save_changes();
  });

  const verdict = document.createElement("div");
  verdict.className = "packlab-quiz-verdict";
  verdict.setAttribute("aria-live", "polite");
  verdict.innerHTML = model.get("feedback");
  model.on("change:feedback", () => { verdict.innerHTML = model.get("feedback"); });

  el.append(question, group, button, verdict);
}

export default { render };
