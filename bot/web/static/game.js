// The game page's slider: the page works without it (each position is a link); this adds
// a range input and the keys Left, Right, Home and End, swapping the board picture and
// marking the move in the list, without loading the page again.
"use strict";
(function () {
  // times in the reader's own zone (the page says UTC without script)
  const local = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  });
  for (const time of document.querySelectorAll("time[datetime]")) {
    const moment = new Date(time.getAttribute("datetime"));
    if (!Number.isNaN(moment.getTime())) {
      time.title = time.textContent;
      time.textContent = local.format(moment);
    }
  }

  const list = document.getElementById("moves");
  const board = document.getElementById("board");
  if (!list || !board) return;
  const boards = list.dataset.boards.split(" ");
  const last = boards.length - 1;
  let ply = Number(list.dataset.ply);
  const label = document.getElementById("ply-now");
  const links = Array.from(list.querySelectorAll("a[data-ply]"));
  const steps = Array.from(document.querySelectorAll(".plies a.step"));

  const slider = document.createElement("input");
  slider.type = "range";
  slider.min = "0";
  slider.max = String(last);
  slider.value = String(ply);
  slider.id = "slider";
  slider.setAttribute("aria-label", "Position: moves played");
  const nav = document.querySelector(".plies");
  nav.insertBefore(slider, nav.firstChild);

  function address(n) {
    const url = new URL(window.location.href);
    url.searchParams.set("ply", String(n));
    return url.pathname + url.search;
  }

  // The picture follows after a short pause, so dragging the slider across a long game
  // asks for the position it stops at, not for every one it passes (each a request).
  let pending = 0;
  let prefetch = 0;
  function draw(n) {
    board.src = boards[n];
    board.alt = "The board after " + n + " moves";
    window.clearTimeout(prefetch);
    prefetch = window.setTimeout(function () {  // the neighbours, ready for the next key
      for (const near of [n - 1, n + 1]) {
        if (near >= 0 && near <= last) new Image().src = boards[near];
      }
    }, 400);
  }

  function show(n) {
    n = Math.max(0, Math.min(last, n));
    ply = n;
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

  slider.addEventListener("input", function () { show(Number(slider.value)); });
  for (const link of links.concat(steps)) {
    link.addEventListener("click", function (event) {
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      show(Number(link.dataset.ply));
    });
  }
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target instanceof HTMLElement && target !== slider && target.matches("input, textarea, select")) return;
    const moves = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: last };
    if (!(event.key in moves)) return;
    event.preventDefault();
    show(moves[event.key]);
  });
})();
