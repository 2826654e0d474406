// A game page kept live: the game's stream (Server-Sent Events, /g/<game>/live) says when
// the position changes; the page is then fetched again and each of its [data-live] parts
// swapped by its id, and "paperboard:game" is dispatched for the page's other scripts.
// The time left to the deadline counts down. Without script the page works as a page.
"use strict";
(function () {
  const game = document.getElementById("game");
  if (!game || !game.dataset.stream) return;

  // the time left, "2d 04:05:06 left", every second
  function left(until) {
    let seconds = Math.max(0, Math.floor((until - Date.now()) / 1000));
    const days = Math.floor(seconds / 86400);
    seconds -= days * 86400;
    const clock = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
      .map(function (n) { return String(n).padStart(2, "0"); }).join(":");
    return (days ? days + "d " : "") + clock + " left";
  }
  function tick() {
    for (const counter of document.querySelectorAll(".countdown[data-until]")) {
      const until = Date.parse(counter.dataset.until);
      if (!Number.isNaN(until)) counter.textContent = " · " + left(until);
    }
  }
  tick();
  window.setInterval(tick, 1000);

  if (!window.EventSource || !window.DOMParser) return;

  function shown() {
    const turn = document.getElementById("turn");
    return turn ? turn.dataset.version : "";
  }

  // Following the game: the last position is shown (the page keeps showing the last
  // after the swap); else the position chosen stays.
  function following() {
    const list = document.getElementById("moves");
    if (!list) return true;
    return Number(list.dataset.ply) === list.dataset.boards.split(" ").length - 1;
  }

  let fetching = false;
  let again = null;  // facts that came while the page was being fetched
  async function refresh(facts) {
    if (fetching) { again = facts; return; }
    fetching = true;
    try {
      const follow = following();
      const address = follow ? window.location.pathname : window.location.pathname + window.location.search;
      const response = await fetch(address, { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      for (const old of document.querySelectorAll("[data-live][id]")) {
        const part = fresh.getElementById(old.id);
        if (part) {
          old.replaceWith(document.importNode(part, true));
        } else {
          old.remove();  // gone with the new position (a game over has no move to make)
        }
      }
      if (follow && window.location.search) window.history.replaceState(null, "", window.location.pathname);
      tick();
      document.dispatchEvent(new CustomEvent("paperboard:game", { detail: { ply: facts.ply, status: facts.status } }));
    } catch (error) {
      // the network is away: the stream comes back by itself and says so again
    } finally {
      fetching = false;
      const next = again;
      again = null;
      if (next && next.version !== shown()) refresh(next);
    }
  }

  // EventSource comes back by itself after a lost connection; an answer that is not a
  // stream (the server restarting behind a proxy, too many pages open) closes it: then
  // this opens it again, waiting longer each time.
  const RETRY_FIRST = 2000;
  const RETRY_MOST = 60000;
  let wait = RETRY_FIRST;
  function connect() {
    const source = new EventSource(game.dataset.stream);
    source.addEventListener("game", function (event) {
      const facts = JSON.parse(event.data);
      if (facts.version !== shown()) refresh(facts);
    });
    source.addEventListener("open", function () { wait = RETRY_FIRST; });
    source.addEventListener("error", function () {
      if (source.readyState !== EventSource.CLOSED) return;
      window.setTimeout(connect, wait);
      wait = Math.min(RETRY_MOST, wait * 2);
    });
  }
  connect();
})();
