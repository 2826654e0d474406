// Tap to move (bot/web/play.py): the targets over the board's picture become buttons;
// each tap asks the server what move the taps so far write (the engine decides, never this
// script), shows it, and once it is a whole move its preview and Confirm. The typed form
// works without this script. A new position (live.js's "paperboard:game") starts over.
"use strict";
(function () {
  let taps = [];
  let asked = 0; // the latest question: older answers are dropped

  function element(id) {
    return document.getElementById(id);
  }

  function csrf(moving) {
    return moving.querySelector("input[name=csrf]").value;
  }

  async function ask(url, fields, moving) {
    const body = new FormData();
    body.set("csrf", csrf(moving));
    body.set("ply", moving.dataset.ply);
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        body: body,
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
    } catch (error) {
      return { sentence: "The site could not be reached: try again." };
    }
    const type = response.headers.get("Content-Type") || "";
    if (type.indexOf("application/json") === -1) {
      return { sentence: "That was refused: load the page again and retry." };
    }
    return response.json();
  }

  function setup() {
    const moving = element("moving");
    const layer = element("targets");
    if (!moving || !layer || moving.hidden || layer.dataset.ready) return;
    layer.dataset.ready = "1"; // listeners once per element
    taps = [];
    const sentence = element("tap-sentence");
    const shown = element("tapped-move");
    const line = moving.querySelector(".tapped");
    const preview = moving.querySelector(".tap-preview");
    const picture = element("tap-picture");
    const confirm = element("tap-confirm");
    const played = element("tap-played");
    let whole = null; // the whole move the taps write, once they do

    for (const target of layer.querySelectorAll(".target")) {
      const x = Number(target.dataset.x);
      const y = Number(target.dataset.y);
      const r = Number(target.dataset.r);
      target.style.left = x * 100 + "%";
      target.style.top = y * 100 + "%";
      target.style.width = 2 * r * 100 + "%";
    }
    layer.hidden = false;
    for (const part of moving.querySelectorAll(".tap-hint, .tools")) part.hidden = false;
    roving(layer);

    function mark() {
      for (const button of moving.ownerDocument.querySelectorAll("[data-tap]")) {
        button.setAttribute("aria-pressed", taps.indexOf(button.dataset.tap) === -1 ? "false" : "true");
      }
    }

    function clear(words) {
      taps = [];
      whole = null;
      mark();
      shown.textContent = "";
      line.hidden = true;
      preview.hidden = true;
      sentence.textContent = words || "";
    }

    async function tapped() {
      mark();
      const question = ++asked;
      if (!taps.length) return clear();
      const answer = await ask(moving.dataset.taps, { taps: taps.join(" ") }, moving);
      if (question !== asked) return;
      if (answer.sentence) {
        taps.pop(); // the tap that broke the move is undone; the others stay
        mark();
        sentence.textContent = answer.sentence;
        return;
      }
      sentence.textContent = "";
      shown.textContent = answer.move;
      line.hidden = false;
      whole = answer.whole ? answer.move : null;
      preview.hidden = !answer.whole;
      if (answer.whole) {
        picture.srcset = answer.srcset;
        picture.src = answer.picture;
        picture.alt = "The board after " + answer.played;
        played.textContent = answer.played;
      }
    }

    function tap(word) {
      // tapping the last tap again takes it back
      if (taps.length && taps[taps.length - 1] === word) taps.pop();
      else taps.push(word);
      tapped();
    }

    for (const button of moving.ownerDocument.querySelectorAll("[data-tap]")) {
      button.addEventListener("click", function () {
        tap(button.dataset.tap);
      });
    }
    element("tap-clear").addEventListener("click", function () {
      clear();
    });
    confirm.addEventListener("click", async function () {
      if (whole === null) return;
      confirm.disabled = true;
      const answer = await ask(moving.dataset.move, { move: whole }, moving);
      confirm.disabled = false;
      if (answer.sentence) {
        clear(answer.sentence);
        return;
      }
      window.location.assign(answer.address);
    });
  }

  // The board is one stop of the Tab order (a big board has thousands of points): the
  // arrow keys move between its points, to the nearest one that way, and Enter or Space
  // taps. Handled here, the arrows do not also step the position slider (game.js).
  function roving(layer) {
    const targets = Array.from(layer.querySelectorAll(".target"));
    if (!targets.length) return;
    const middle = targets.reduce(function (best, target) {
      const off = function (t) { return Math.abs(t.dataset.x - 0.5) + Math.abs(t.dataset.y - 0.5); };
      return off(target) < off(best) ? target : best;
    });
    for (const target of targets) target.tabIndex = target === middle ? 0 : -1;
    const ways = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    function centre(target) {
      const box = target.getBoundingClientRect();
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    }
    function nearest(from, way) {
      const here = centre(from);
      let best = null;
      let score = Infinity;
      for (const target of targets) {
        const there = centre(target);
        const along = (there.x - here.x) * way[0] + (there.y - here.y) * way[1];
        const across = Math.abs((there.x - here.x) * way[1] - (there.y - here.y) * way[0]);
        if (along < 1 || along + across >= score) continue;
        best = target;
        score = along + across;
      }
      return best;
    }
    layer.addEventListener("keydown", function (event) {
      const from = event.target;
      if (!(event.key in ways) || !from.classList.contains("target")) return;
      event.preventDefault();
      event.stopPropagation();
      const to = nearest(from, ways[event.key]);
      if (to === null) return;
      from.tabIndex = -1;
      to.tabIndex = 0;
      to.focus();
    });
  }

  document.addEventListener("paperboard:game", setup);
  setup();
})();
