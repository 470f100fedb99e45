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
  designer.addEventListener("input", later);
  designer.addEventListener("change", later);
  later();
});
