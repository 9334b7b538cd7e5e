// The review page: the reviewer answers each of the judge's verdicts, and every answer is saved
// at once (saver.js). The keyboard does everything: j/k or the arrows move between verdicts,
// a agrees, d disagrees with a yes/no, 0-9 give the right score (1 and 0: yes and no), s skips,
// Enter marks the dialogue done and opens the next, n/p the next and previous dialogue. After
// an answer the next verdict is current; the page says how many are left unanswered.
"use strict";
(function () {
  const root = document.getElementById("review");
  const verdicts = [...root.querySelectorAll(".review-verdict")];
  const answers = new Map(); // verdict element -> action, as the server takes it
  let done = "done" in root.dataset;
  let current = 0;

  function judgeValue(verdict) {
    return JSON.parse(verdict.dataset.judge);
  }

  function labels() {
    const reviews = {};
    for (const verdict of verdicts) {
      const judgment = (reviews[verdict.dataset.judgment] ??= {});
      if (answers.has(verdict)) judgment[verdict.dataset.dimension] = answers.get(verdict);
    }
    return { reviews: reviews, done: done };
  }

  function described(verdict, action) {
    if (action === undefined) return "not reviewed yet";
    if (action === "agree") return "agreed";
    if (action === "skip") return "skipped";
    if (action === "disagree") return `disagreed: ${judgeValue(verdict) ? "no" : "yes"}`;
    if (action === true || action === false) return `given: ${action ? "yes" : "no"}`;
    return `corrected: ${action}`;
  }

  function render(verdict) {
    const action = answers.get(verdict);
    verdict.dataset.review = action === undefined ? "" : typeof action === "string" ? action : "value";
    verdict.querySelector(".review-state").textContent = described(verdict, action);
    const input = verdict.querySelector('input[type="number"]');
    if (input) input.value = typeof action === "number" ? action : "";
  }

  function left() {
    return verdicts.filter((verdict) => !answers.has(verdict));
  }

  function renderLeft() {
    const count = left().length;
    document.getElementById("unreviewed").textContent = count
      ? `${count} of ${verdicts.length} verdict(s) not reviewed yet`
      : "every verdict reviewed";
    document.getElementById("finish").firstChild.textContent = done ? "Done ✓ " : "Done ";
  }

  function restore(saved) {
    answers.clear();
    for (const verdict of verdicts) {
      const action = (saved.reviews[verdict.dataset.judgment] || {})[verdict.dataset.dimension];
      if (action !== undefined) answers.set(verdict, action);
      render(verdict);
    }
    done = saved.done;
    renderLeft();
  }

  for (const verdict of verdicts) {
    if (verdict.dataset.action) answers.set(verdict, JSON.parse(verdict.dataset.action));
    render(verdict);
  }
  renderLeft();

  const saver = labelSaver({
    url: `/api/reviews/${encodeURIComponent(root.dataset.dialogue)}`,
    labels: labels,
    restore: restore,
    savedText: (sent) => (sent.done ? "done" : "saved, not done yet"),
  });

  function focus(index) {
    if (!verdicts.length) return;
    verdicts[current].classList.remove("current");
    current = Math.max(0, Math.min(verdicts.length - 1, index));
    verdicts[current].classList.add("current");
    verdicts[current].scrollIntoView({ block: "nearest" });
  }

  function refusal(verdict, action) {
    const kind = verdict.dataset.kind;
    if (action === "agree" && !verdict.dataset.agreeable) {
      return "nothing to agree with here: give the value or skip";
    }
    if (action === "disagree" && (kind !== "yes/no" || judgeValue(verdict) === null)) {
      return kind === "score" ? "a score is corrected with its value (0-9)" : "only a yes/no verdict is disagreed with";
    }
    if (typeof action === "boolean" && kind !== "yes/no") return "yes or no answers a yes/no verdict";
    if (typeof action === "number" && kind !== "score") return "a score answers a score";
    return null;
  }

  function answer(verdict, action) {
    const refused = refusal(verdict, action);
    if (refused) {
      saver.show(refused, true);
      return;
    }
    answers.set(verdict, action);
    render(verdict);
    renderLeft();
    saver.changed(verdict);
    const index = verdicts.indexOf(verdict);
    if (index === current) focus(index + 1);
  }

  function finish() {
    const open = left();
    if (open.length) {
      saver.show(`not done yet: ${open.length} verdict(s) not reviewed`, true);
      focus(verdicts.indexOf(open[0]));
      return;
    }
    done = true;
    renderLeft();
    saver.save();
    saver.leave(root.dataset.after);
  }

  root.addEventListener("click", (event) => {
    const verdict = event.target.closest(".review-verdict");
    if (!verdict) return;
    focus(verdicts.indexOf(verdict));
    const button = event.target.closest("button[data-do]");
    if (!button) return;
    const wanted = button.dataset.do;
    answer(verdict, wanted === "true" ? true : wanted === "false" ? false : wanted);
  });
  root.addEventListener("change", (event) => {
    const verdict = event.target.closest(".review-verdict");
    const value = Number(event.target.value);
    if (verdict && event.target.value !== "" && Number.isInteger(value) && value >= 0 && value <= 9) {
      answer(verdict, value);
    }
  });
  document.getElementById("finish").addEventListener("click", finish);

  function go(id) {
    const link = document.getElementById(id);
    if (link) saver.leave(link.href);
  }

  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    const verdict = verdicts[current];
    const digit = /^Digit([0-9])$/.exec(event.code) || /^Numpad([0-9])$/.exec(event.code);
    if (event.key === "j" || event.key === "ArrowDown") {
      focus(current + 1);
    } else if (event.key === "k" || event.key === "ArrowUp") {
      focus(current - 1);
    } else if (event.key === "Enter") {
      finish();
    } else if (event.key === "n") {
      go("next");
    } else if (event.key === "p") {
      go("previous");
    } else if (!verdict) {
      return;
    } else if (event.key === "a") {
      answer(verdict, "agree");
    } else if (event.key === "d") {
      answer(verdict, "disagree");
    } else if (event.key === "s") {
      answer(verdict, "skip");
    } else if (digit && verdict.dataset.kind === "yes/no" && digit[1] <= "1") {
      answer(verdict, digit[1] === "1");
    } else if (digit) {
      answer(verdict, Number(digit[1]));
    } else {
      return;
    }
    event.preventDefault();
  });
  focus(Math.max(0, verdicts.indexOf(left()[0])));
})();
