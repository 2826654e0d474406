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

  document.addEventListener("paperboard:game", setup);
  setup();
})();
