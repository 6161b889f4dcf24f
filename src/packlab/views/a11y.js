// Accessible names for a view's widgets (an anywidget module: packlab.views.a11y). ipywidgets
// draws a slider as a <div role="slider"> beside an unlinked <label>, and a plot as an <img>
// without alt. This hidden child of a view links each slider to its visible label
// (aria-labelledby) and gives each plot image the view's alt text, again whenever the view
// redraws its children.
let counter = 0;

function describe(box, model) {
  for (const slider of box.querySelectorAll(".widget-slider")) {
    const handle = slider.querySelector(".noUi-handle");
    const label = slider.querySelector(".widget-label");
    if (!handle || !label || !label.textContent.trim()) continue;
    if (!label.id) label.id = "packlab-label-" + (++counter) + "-" + Date.now().toString(36);
    if (handle.getAttribute("aria-labelledby") !== label.id) {
      handle.setAttribute("aria-labelledby", label.id);
    }
  }
  for (const img of box.querySelectorAll("img.widget-image")) {
    if (img.getAttribute("alt") !== model.get("alt")) img.setAttribute("alt", model.get("alt"));
  }
}

function render({ model, el }) {
  el.style.display = "none";
  let observer = null;
  let tries = 0;
  const attach = () => {
    const box = el.parentElement;
    if (!box) {
      if (++tries < 600) setTimeout(attach, 50);  // not in the page yet: the box renders first
      return;
    }
    describe(box, model);
    observer = new MutationObserver(() => describe(box, model));
    observer.observe(box, { childList: true, subtree: true });
    model.on("change:alt", () => describe(box, model));
  };
  attach();
  return () => observer && observer.disconnect();
}

export default { render };
