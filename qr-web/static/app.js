// The dashboard's one script, for what JavaScript adds to pages that work without it:
// a copy button for a new key, confirmations of destructive forms, passkeys (which only a script
// can ask the browser for), and the designer's live preview, presets, link picker and contrast
// advice.
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

  // Passkey forms: on submit, ask the server for a challenge (data-options), have the browser's
  // authenticator answer it (create: a new passkey; get: sign in with one), then post the answer
  // with the form. Browsers without WebAuthn's JSON helpers (before 2024) are told so.
  for (const form of document.querySelectorAll("form[data-passkey]")) {
    const status = form.querySelector(".passkey-status");
    const say = (message) => {
      status.textContent = message;
      status.hidden = false;
    };
    form.addEventListener("submit", async (event) => {
      if (form.dataset.answered === "yes") return;
      event.preventDefault();
      const credentials = window.PublicKeyCredential;
      if (!credentials || !credentials.parseCreationOptionsFromJSON) {
        say("This browser cannot use passkeys here; use a current browser, or your password.");
        return;
      }
      try {
        const asked = await fetch(form.dataset.options, {
          method: "POST",
          credentials: "same-origin",
          body: new URLSearchParams({ csrf: form.elements.csrf.value }),
        });
        let challenge;
        try {
          challenge = await asked.json();
        } catch (_) {
          throw new Error("The server refused (" + asked.status + "); reload the page and try again.");
        }
        if (!asked.ok) throw new Error(challenge.error);
        const credential = form.dataset.passkey === "create"
          ? await navigator.credentials.create({
            publicKey: credentials.parseCreationOptionsFromJSON(challenge.publicKey),
          })
          : await navigator.credentials.get({
            publicKey: credentials.parseRequestOptionsFromJSON(challenge.publicKey),
          });
        form.elements.ceremony.value = challenge.ceremony;
        form.elements.response.value = JSON.stringify(credential.toJSON());
        form.dataset.answered = "yes";
        form.submit();
      } catch (e) {
        say(e.name === "NotAllowedError"
          ? "The passkey prompt was closed or timed out; try again."
          : e.message);
      }
    });
  }

  // The designer: a new preview 300 ms after the last change.
  const designer = document.getElementById("designer-form");
  if (!designer) return;
  const image = document.getElementById("preview-image");
  const hint = document.getElementById("preview-hint");
  const error = document.getElementById("preview-error");
  const warning = document.getElementById("contrast-warning");
  let timer = null;
  let shown = null;
  const refresh = async () => {
    const response = await fetch("/dashboard/design/preview", {
      method: "POST",
      body: new FormData(designer),
      credentials: "same-origin",
    });
    if (response.ok) {
      const advice = response.headers.get("x-design-advice");
      warning.textContent = advice || "";
      warning.hidden = !advice;
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
  // A control back to its default (`value` null) or to a value in the API's spelling: radio
  // pictures, selects, numbers and texts, colours (with their "default" box).
  const setValue = (name, value) => {
    const radios = designer.querySelectorAll(`input[type=radio][name="${name}"]`);
    const control = document.getElementById("f-" + name);
    if (!control) return;
    const wanted = value === null ? control.dataset.default || "" : value;
    if (radios.length) {
      for (const radio of radios) radio.checked = radio.value === wanted;
      return;
    }
    const box = document.getElementById("d-" + name);
    if (control.type === "color") {
      if (value !== null) control.value = "#" + value.toLowerCase();
      else if (!box) control.value = control.dataset.default;
      if (box) box.checked = value === null;
    } else {
      control.value = wanted;
    }
  };
  // Presets: applied in place (without the script, the button posts the form and the server
  // applies it): the look parameters back to their defaults, then the preset's values.
  const presets = designer.querySelector(".presets");
  if (presets) {
    presets.addEventListener("click", (event) => {
      const button = event.target.closest("button[name=preset]");
      if (!button) return;
      event.preventDefault();
      for (const name of presets.dataset.reset.split(" ")) setValue(name, null);
      for (const [name, value] of new URLSearchParams(button.dataset.values)) setValue(name, value);
      later();
    });
  }
  // A picked link puts its short address in the content box; typing there unpicks it.
  const link = document.getElementById("f-link");
  const data = document.getElementById("f-data");
  if (link && data) {
    link.addEventListener("change", () => {
      const option = link.selectedOptions[0];
      if (option && option.dataset.url) {
        data.value = option.dataset.url;
        if (kind) { kind.value = ""; showType(); }
      }
    });
    data.addEventListener("input", () => { link.value = ""; });
  }
  // A logo raises the error correction to H (the server does so too), and the size slider shows
  // its value.
  const logo = document.getElementById("f-logo");
  const level = document.getElementById("f-errorCorrection");
  if (logo && level && logo.type === "file") {
    logo.addEventListener("change", () => { if (logo.files.length) level.value = "H"; });
  }
  const logoSize = document.getElementById("f-logoSize");
  const logoSizeShown = document.getElementById("o-logoSize");
  if (logoSize && logoSizeShown) {
    logoSize.addEventListener("input", () => { logoSizeShown.textContent = logoSize.value + " %"; });
  }
  designer.addEventListener("input", later);
  designer.addEventListener("change", later);
  later();
});
