// The game page's slider: the page works without it (each position is a link); this adds
// a range input and the keys Left, Right, Home and End, swapping the board picture and
// marking the move in the list, without loading the page again. When live.js swaps the
// page's parts for a new position ("paperboard:game"), it reads them again.
"use strict";
(function () {
  // times in the reader's own zone (the page says UTC without script); the year only when
  // it is not this one, so that a move's line fits a phone's width
  const parts = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" };
  const thisYear = new Intl.DateTimeFormat(undefined, parts);
  const otherYear = new Intl.DateTimeFormat(undefined, Object.assign({ year: "numeric" }, parts));
  function localTimes() {
    const now = new Date();
    for (const time of document.querySelectorAll("time[datetime]:not([title])")) {
      const moment = new Date(time.getAttribute("datetime"));
      if (!Number.isNaN(moment.getTime())) {
        time.title = time.textContent;
        const local = moment.getFullYear() === now.getFullYear() ? thisYear : otherYear;
        time.textContent = local.format(moment);
      }
    }
  }

  // the page's parts as last read (`setup`)
  let list = null;
  let board = null;
  let boards = [];
  let last = 0;
  let ply = 0;
  let label = null;
  let links = [];
  let steps = [];
  let slider = null;

  function address(n) {
    const url = new URL(window.location.href);
    url.searchParams.set("ply", String(n));
    return url.pathname + url.search;
  }

  // A board's picture at 1x and 2x, as the page's img takes them: the 2x address is
  // the 1x's with "@2x" before ".png" (bot/web/urls.py, ENDINGS). The browser picks one
  // by its pixel ratio.
  function picture(image, address) {
    image.srcset = address + " 1x, " + address.replace(/\.png(?=\?|$)/, "@2x.png") + " 2x";
    image.src = address;
  }

  // The picture follows after a short pause, so dragging the slider across a long game
  // asks for the position it stops at, not for every one it passes (each a request).
  let pending = 0;
  let prefetch = 0;
  function draw(n) {
    picture(board, boards[n]);
    board.alt = "The board after " + n + " moves";
    window.clearTimeout(prefetch);
    prefetch = window.setTimeout(function () {  // the neighbours, ready for the next key
      for (const near of [n - 1, n + 1]) {
        if (near >= 0 && near <= last) picture(new Image(), boards[near]);
      }
    }, 400);
  }

  function show(n) {
    n = Math.max(0, Math.min(last, n));
    ply = n;
    list.dataset.ply = String(n);
    slider.value = String(n);
    label.textContent = String(n);
    for (const link of links) {
      if (Number(link.dataset.ply) === n) {
        link.setAttribute("aria-current", "step");
        link.scrollIntoView({ block: "nearest" });
      } else {
        link.removeAttribute("aria-current");
      }
    }
    const targets = [0, Math.max(0, n - 1), Math.min(last, n + 1), last];
    steps.forEach(function (step, i) {
      step.dataset.ply = String(targets[i]);
      step.href = address(targets[i]);
    });
    window.history.replaceState(null, "", address(n));
    window.clearTimeout(pending);
    pending = window.setTimeout(function () { draw(n); }, 60);
  }

  function follow(event) {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    show(Number(event.currentTarget.dataset.ply));
  }

  // The slider and the links on the page's parts as they are now.
  function setup() {
    localTimes();
    window.clearTimeout(pending);
    list = document.getElementById("moves");
    board = document.getElementById("board");
    if (!list || !board) { list = null; return; }
    boards = list.dataset.boards.split(" ");
    last = boards.length - 1;
    ply = Number(list.dataset.ply);
    label = document.getElementById("ply-now");
    links = Array.from(list.querySelectorAll("a[data-ply]"));
    steps = Array.from(document.querySelectorAll(".plies a.step"));

    slider = document.createElement("input");
    slider.type = "range";
    slider.min = "0";
    slider.max = String(last);
    slider.value = String(ply);
    slider.id = "slider";
    slider.setAttribute("aria-label", "Position: moves played");
    const nav = document.querySelector(".plies");
    nav.insertBefore(slider, nav.firstChild);
    slider.addEventListener("input", function () { show(Number(slider.value)); });
    for (const link of links.concat(steps)) link.addEventListener("click", follow);
  }

  document.addEventListener("keydown", function (event) {
    if (!list || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target instanceof HTMLElement && target !== slider && target.matches("input, textarea, select")) return;
    const moves = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: last };
    if (!(event.key in moves)) return;
    event.preventDefault();
    show(moves[event.key]);
  });
  document.addEventListener("paperboard:game", setup);
  setup();
})();
