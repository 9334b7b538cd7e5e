// The annotation page: every change is saved at once (a comment shortly after typing stops),
// and the keyboard does everything: letters tick issues, 1-5 the overall score, Shift+1-5 the
// user's human-likeness, n/p the next and previous dialogue. A save that fails cannot go
// unnoticed: the control says "not saved", a banner stays in view, the save is retried, and the
// page does not move on until the labels are saved or discarded. A page older than a server
// restart fetches a fresh CSRF token and saves again.
"use strict";
(function () {
  const form = document.getElementById("labels");
  const status = document.getElementById("status");
  const banner = document.getElementById("unsaved");
  const bannerMessage = document.getElementById("unsaved-message");
  const dialogue = form.dataset.dialogue;
  const touched = new Set(); // fields changed since the last save that succeeded
  let csrf = document.querySelector('meta[name="csrf-token"]').content;
  let typing = null; // the timer of a comment being typed
  let saving = null; // the save under way, as a promise
  let failure = null; // why the last save failed, until one succeeds
  let retryTimer = null;
  let retryDelay = 1000;

  class SaveError extends Error {
    constructor(message, transient) {
      super(message);
      this.transient = transient; // worth retrying without the annotator
    }
  }

  function score(name) {
    const checked = form.querySelector(`input[name="${name}"]:checked`);
    return checked ? Number(checked.value) : null;
  }

  function labels() {
    const issues = {};
    for (const box of form.querySelectorAll('input[name="issue"]:checked')) {
      issues[box.value] = true;
    }
    return {
      issues: issues,
      overall: score("overall"),
      user_humanlike: score("user_humanlike"),
      comment: form.elements.comment.value,
    };
  }

  let stored = labels(); // what the server holds, as far as this page knows

  function restore(saved) {
    for (const box of form.querySelectorAll('input[name="issue"]')) {
      box.checked = saved.issues[box.value] === true;
    }
    for (const radio of form.querySelectorAll('input[type="radio"]')) {
      radio.checked = saved[radio.name] === Number(radio.value);
    }
    form.elements.comment.value = saved.comment;
  }

  function show(text, failed) {
    status.textContent = text;
    status.classList.toggle("error", failed);
  }

  function mark(state) {
    for (const field of touched) {
      if (state) field.dataset.save = state;
      else delete field.dataset.save;
    }
  }

  async function reach(url, options) {
    try {
      return await fetch(url, { credentials: "same-origin", ...options });
    } catch {
      throw new SaveError("the server cannot be reached", true);
    }
  }

  function put(body) {
    return reach(`/api/labels/${encodeURIComponent(dialogue)}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: body,
    });
  }

  async function freshToken() {
    const response = await reach("/api/csrf", {});
    if (response.ok) csrf = (await response.json()).csrf;
    return response.ok;
  }

  async function send(body) {
    let response = await put(body);
    if (response.status === 403 && (await freshToken())) response = await put(body);
    const answer = await response.json().catch(() => ({ detail: response.statusText }));
    if (!response.ok) throw new SaveError(answer.detail, response.status >= 500);
    document.getElementById("done").textContent = answer.done;
  }

  function settled(text) {
    failure = null;
    retryDelay = 1000;
    mark(null);
    touched.clear();
    banner.hidden = true;
    show(text, false);
  }

  function failed(error) {
    failure = error;
    mark("unsaved");
    show(`not saved: ${error.message}`, true);
    let next = "Retry, or discard the change.";
    if (error.transient) {
      next = `Trying again in ${retryDelay / 1000} s.`;
      retryTimer = setTimeout(save, retryDelay);
      retryDelay = Math.min(2 * retryDelay, 10000);
    }
    bannerMessage.textContent = `Not saved: ${error.message}. ${next}`;
    banner.hidden = false;
  }

  async function saveLatest() {
    show("saving…", false);
    for (;;) {
      const body = JSON.stringify(labels());
      try {
        await send(body);
        stored = JSON.parse(body);
      } catch (error) {
        failed(error instanceof SaveError ? error : new SaveError(String(error), true));
        return;
      }
      if (JSON.stringify(labels()) === body) break; // nothing changed while it was sent
    }
    settled("saved");
  }

  function save() {
    // One save at a time: it sends the newest labels until what is stored is what is shown.
    clearTimeout(retryTimer);
    if (!saving) saving = saveLatest().finally(() => (saving = null));
    return saving;
  }

  function touch(control) {
    const field = control.closest(".field");
    touched.add(field);
    field.dataset.save = "saving";
  }

  function changed(control) {
    touch(control);
    save();
  }

  function unsettled() {
    return failure !== null || saving !== null || typing !== null;
  }

  async function leave(href) {
    if (typing !== null) {
      clearTimeout(typing);
      typing = null;
      save();
    }
    if (saving) await saving;
    if (failure) {
      bannerMessage.textContent = `Not saved: ${failure.message}. This page stays until the change is saved or discarded.`;
      banner.hidden = false;
      return;
    }
    window.location.href = href;
  }

  form.addEventListener("change", (event) => {
    if (event.target.name !== "comment") changed(event.target);
  });
  form.elements.comment.addEventListener("input", (event) => {
    touch(event.target);
    clearTimeout(typing);
    typing = setTimeout(() => {
      typing = null;
      save();
    }, 400);
  });
  form.addEventListener("submit", (event) => event.preventDefault());
  document.getElementById("retry").addEventListener("click", save);
  document.getElementById("discard").addEventListener("click", async () => {
    if (saving) await saving;
    if (!failure) return; // saved meanwhile: nothing left to discard
    clearTimeout(retryTimer);
    restore(stored);
    settled("change discarded: the page shows the saved labels");
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    if (link && unsettled()) {
      event.preventDefault();
      leave(link.href);
    }
  });
  window.addEventListener("beforeunload", (event) => {
    if (unsettled()) event.preventDefault();
  });

  function go(id) {
    const link = document.getElementById(id);
    if (link) leave(link.href);
  }

  function pick(name, value) {
    const radio = form.querySelector(`input[name="${name}"][value="${value}"]`);
    if (radio && !radio.checked) {
      radio.checked = true;
      changed(radio);
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "TEXTAREA" || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    const digit = /^Digit([1-5])$/.exec(event.code);
    if (digit) {
      pick(event.shiftKey ? "user_humanlike" : "overall", digit[1]);
    } else if (event.key === "n") {
      go("next");
    } else if (event.key === "p") {
      go("previous");
    } else {
      const box = form.querySelector(`input[data-key="${CSS.escape(event.key)}"]`);
      if (!box) return;
      box.checked = !box.checked;
      changed(box);
    }
    event.preventDefault();
  });
})();
