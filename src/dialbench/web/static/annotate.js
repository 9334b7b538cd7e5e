// The annotation page: every change is saved at once (saver.js; a comment shortly after typing
// stops), and the keyboard does everything: letters tick issues, 1-5 the overall score,
// Shift+1-5 the user's human-likeness, d marks the dialogue done, n/p the next and previous
// dialogue.
"use strict";
(function () {
  const form = document.getElementById("labels");
  let done = "done" in form.dataset;

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

  function restore(saved) {
    for (const box of form.querySelectorAll('input[name="issue"]')) {
      box.checked = saved.issues[box.value] === true;
    }
    for (const radio of form.querySelectorAll('input[type="radio"]')) {
      radio.checked = saved[radio.name] === Number(radio.value);
    }
    form.elements.comment.value = saved.comment;
    done = saved.done;
    document.getElementById("finish").firstChild.textContent = done ? "Done ✓ " : "Done ";
  }

  const saver = labelSaver({
    url: `/api/labels/${encodeURIComponent(form.dataset.dialogue)}`,
    labels: labels,
    restore: restore,
    savedText: (sent) => (sent.done ? "done" : "saved, not done yet"),
  });

  function changed(control) {
    saver.changed(control.closest(".field"));
  }

  form.addEventListener("change", (event) => {
    if (event.target.name !== "comment") changed(event.target);
  });
  form.elements.comment.addEventListener("input", (event) => {
    saver.typed(event.target.closest(".field"));
  });
  form.addEventListener("submit", (event) => event.preventDefault());

  function finish() {
    if (score("overall") === null || score("user_humanlike") === null) {
      saver.show("not done yet: give both scores first", true);
      return;
    }
    done = true;
    document.getElementById("finish").firstChild.textContent = "Done ✓ ";
    saver.save();
  }
  document.getElementById("finish").addEventListener("click", finish);

  function go(id) {
    const link = document.getElementById(id);
    if (link) saver.leave(link.href);
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
    } else if (event.key === "d") {
      finish();
    } else {
      const box = form.querySelector(`input[data-key="${CSS.escape(event.key)}"]`);
      if (!box) return;
      box.checked = !box.checked;
      changed(box);
    }
    event.preventDefault();
  });
})();
