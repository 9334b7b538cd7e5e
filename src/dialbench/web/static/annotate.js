// The annotation page: every change is saved at once (a comment shortly after typing stops),
// and the keyboard does everything: letters tick issues, 1-5 the overall score, Shift+1-5 the
// user's human-likeness, d marks the dialogue done, n/p the next and previous dialogue.
"use strict";
(function () {
  const form = document.getElementById("labels");
  const status = document.getElementById("status");
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const dialogue = form.dataset.dialogue;
  let done = "done" in form.dataset;
  let pending = Promise.resolve();
  let typing = null;

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
      done: done,
    };
  }

  function show(text, failed) {
    status.textContent = text;
    status.classList.toggle("error", failed);
  }

  async function send(body) {
    const response = await fetch(`/api/labels/${encodeURIComponent(dialogue)}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    const answer = await response.json().catch(() => ({ detail: response.statusText }));
    if (!response.ok) {
      show(`not saved: ${answer.detail}`, true);
      return;
    }
    document.getElementById("done").textContent = answer.done;
    document.getElementById("started").textContent = answer.started;
    show(body.done ? "done" : "saved, not done yet", false);
  }

  function save() {
    show("saving…", false);
    const body = labels();
    // One save at a time, in order: the last change is the one stored.
    pending = pending.then(() => send(body)).catch((error) => show(`not saved: ${error}`, true));
    return pending;
  }

  form.addEventListener("change", (event) => {
    if (event.target.name !== "comment") save();
  });
  form.elements.comment.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(save, 400);
  });
  form.addEventListener("submit", (event) => event.preventDefault());

  function finish() {
    if (score("overall") === null || score("user_humanlike") === null) {
      show("not done yet: give both scores first", true);
      return;
    }
    done = true;
    document.getElementById("finish").textContent = "Done ✓";
    save();
  }
  document.getElementById("finish").addEventListener("click", finish);

  function go(id) {
    const link = document.getElementById(id);
    if (link) pending.then(() => { window.location.href = link.href; });
  }

  function pick(name, value) {
    const radio = form.querySelector(`input[name="${name}"][value="${value}"]`);
    if (radio && !radio.checked) {
      radio.checked = true;
      save();
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
    } else if (event.key === "d") {
      finish();
    } else {
      const box = form.querySelector(`input[data-key="${CSS.escape(event.key)}"]`);
      if (!box) return;
      box.checked = !box.checked;
      save();
    }
    event.preventDefault();
  });
})();
