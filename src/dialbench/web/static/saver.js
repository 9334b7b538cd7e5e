// Saving a page's labels as they change, for the annotate and review pages: every change is
// saved at once (typed text shortly after typing stops). A save that fails cannot go unnoticed:
// the control says "not saved", a banner stays in view, the save is retried, and the page does
// not move on until the labels are saved or discarded. A page older than a server restart
// fetches a fresh CSRF token and saves again. The page gives `url` (where to PUT), `labels()`
// (what it shows, as the server takes it), `restore(saved)` (show those labels again) and
// `savedText(sent)` (what the status says once they are stored); the server answers the
// annotator's progress, shown in #done and #started.
"use strict";
window.labelSaver = function (page) {
  const status = document.getElementById("status");
  const banner = document.getElementById("unsaved");
  const bannerMessage = document.getElementById("unsaved-message");
  const touched = new Set(); // fields changed since the last save that succeeded
  let csrf = document.querySelector('meta[name="csrf-token"]').content;
  let typing = null; // the timer of text being typed
  let saving = null; // the save under way, as a promise
  let failure = null; // why the last save failed, until one succeeds
  let retryTimer = null;
  let retryDelay = 1000;
  let stored = page.labels(); // what the server holds, as far as this page knows

  class SaveError extends Error {
    constructor(message, transient) {
      super(message);
      this.transient = transient; // worth retrying without the annotator
    }
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
    return reach(page.url, {
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
    document.getElementById("started").textContent = answer.started;
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
      const body = JSON.stringify(page.labels());
      try {
        await send(body);
        stored = JSON.parse(body);
      } catch (error) {
        failed(error instanceof SaveError ? error : new SaveError(String(error), true));
        return;
      }
      if (JSON.stringify(page.labels()) === body) break; // nothing changed while it was sent
    }
    settled(page.savedText(stored));
  }

  function save() {
    // One save at a time: it sends the newest labels until what is stored is what is shown.
    clearTimeout(retryTimer);
    if (!saving) saving = saveLatest().finally(() => (saving = null));
    return saving;
  }

  function touch(field) {
    touched.add(field);
    field.dataset.save = "saving";
  }

  function changed(field) {
    touch(field);
    save();
  }

  function typed(field) {
    touch(field);
    clearTimeout(typing);
    typing = setTimeout(() => {
      typing = null;
      save();
    }, 400);
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

  document.getElementById("retry").addEventListener("click", save);
  document.getElementById("discard").addEventListener("click", async () => {
    if (saving) await saving;
    if (!failure) return; // saved meanwhile: nothing left to discard
    clearTimeout(retryTimer);
    page.restore(stored);
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

  return { changed, typed, save, leave, show };
};
