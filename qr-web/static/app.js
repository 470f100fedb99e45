// The dashboard's one script, for what JavaScript adds to pages that work without it:
// a copy button for a new key, confirmations of destructive forms, and the designer's live preview.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  // Copy buttons: shown only when the clipboard can be written.
  for (const button of document.querySelectorAll("[data-copy]")) {
    if (!navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      const source = document.getElementById(button.dataset.copy);
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = "Copied";
      } catch (_) {
        button.textContent = "Select and copy by hand";
      }
    });
  }

  // Forms that destroy something ask first.
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  // The designer: a new preview 300 ms after the last change.
  const designer = document.getElementById("designer-form");
  if (!designer) return;
  const image = document.getElementById("preview-image");
  const hint = document.getElementById("preview-hint");
  const error = document.getElementById("preview-error");
  let timer = null;
  let shown = null;
  const refresh = async () => {
    const response = await fetch("/dashboard/design/preview", {
      method: "POST",
      body: new FormData(designer),
      credentials: "same-origin",
    });
    if (response.ok) {
      const blob = await response.blob();
      if (shown) URL.revokeObjectURL(shown);
      shown = URL.createObjectURL(blob);
      image.src = shown;
      image.hidden = false;
      if (hint) hint.hidden = true;
      error.hidden = true;
    } else {
      error.textContent = await response.text();
      error.hidden = false;
    }
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(() => refresh().catch(() => {}), 300);
  };
  // A content type shows its own fields and hides the content box; no type shows only the
  // content box. Hidden fields are disabled, so they are not sent.
  const kind = designer.querySelector("select[name=type]");
  const showType = () => {
    const selected = kind ? kind.value : "";
    for (const field of designer.querySelectorAll(".field[data-types]")) {
      const visible = field.dataset.types.split(" ").includes(selected);
      field.hidden = !visible;
      for (const input of field.querySelectorAll("input, select, textarea")) input.disabled = !visible;
    }
    const data = designer.querySelector(".field-data");
    if (data) {
      data.hidden = selected !== "";
      for (const input of data.querySelectorAll("textarea")) input.disabled = selected !== "";
    }
  };
  if (kind) {
    kind.addEventListener("change", showType);
    showType();
  }
  // A colour's "default" box (for colours without a fixed default): picking a colour means
  // using it, so the box is cleared; ticking it again goes back to the default. Without the
  // script the server ignores the picker while the box is ticked.
  for (const box of designer.querySelectorAll(".colour input[type=checkbox]")) {
    const picker = document.getElementById("f-" + box.value);
    if (picker) picker.addEventListener("input", () => { box.checked = false; });
  }
  designer.addEventListener("input", later);
  designer.addEventListener("change", later);
  later();
});
