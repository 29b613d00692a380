// The replay page's stepper (game-agnostic): rebuilds the drawn state after each event from the events'
// changes, and lets the reader step by event, turn or round (buttons, keyboard, slider). The game's own
// script (window.playtestDraw) draws one state into the SVG. User text only ever goes in as textContent.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var events = data.events, meta = data.meta;
  var states = [], state = {};
  for (var i = 0; i < events.length; i++) {
    state = Object.assign({}, state, events[i].change);
    states.push(state);
  }
  var svg = document.getElementById("board");
  var list = document.getElementById("events");
  var slider = document.getElementById("slider");
  var where = document.getElementById("where");
  var rows = [];
  events.forEach(function (e, k) {
    var li = document.createElement("li");
    li.textContent = e.text;
    li.className = "ev kind-" + e.kind;
    li.style.paddingLeft = (0.2 + e.depth * 1.2) + "em";
    li.dataset.seq = String(e.seq);
    li.addEventListener("click", function () { go(k); });
    list.appendChild(li);
    rows.push(li);
  });
  slider.max = String(Math.max(0, events.length - 1));
  var at = -1;
  var why = document.getElementById("why");

  // what a search bot saw before the decision that event k belongs to (its "search" note: the event just
  // before the decision's first event, which is at the note's depth or above), or ""
  function reason(k) {
    if (events[k].kind === "search") return events[k].text;
    var a = k;
    while (a > 0 && events[a].depth > 1) a--;
    var n = events[a - 1];
    return a > 0 && n.kind === "search" && n.actor === events[a].actor ? n.text : "";
  }

  function go(k) {
    k = Math.max(0, Math.min(events.length - 1, k));
    if (at >= 0) rows[at].classList.remove("now");
    at = k;
    rows[k].classList.add("now");
    rows[k].scrollIntoView({block: "nearest"});
    slider.value = String(k);
    var e = events[k];
    where.textContent = "event " + (k + 1) + " of " + events.length + " \u00b7 round " + e.round +
      " \u00b7 turn " + e.turn + (e.actor ? " \u00b7 " + e.actor : "");
    document.getElementById("now-text").textContent = e.text;
    why.textContent = reason(k);
    why.hidden = why.textContent === "";
    document.body.dataset.seq = String(k);
    window.playtestDraw(svg, states[k], meta, e);
  }

  // the first event after (or last before) k whose kind starts a turn or a round
  function seek(k, step, kinds) {
    var j = k + step;
    while (j >= 0 && j < events.length && kinds.indexOf(events[j].kind) < 0) j += step;
    return j < 0 ? 0 : (j >= events.length ? events.length - 1 : j);
  }
  var TURN = meta.turn_kinds || ["turn"], ROUND = meta.round_kinds || ["round"];
  var actions = {
    "prev-round": function () { go(seek(at, -1, ROUND)); },
    "prev-turn": function () { go(seek(at, -1, TURN.concat(ROUND))); },
    "prev": function () { go(at - 1); },
    "next": function () { go(at + 1); },
    "next-turn": function () { go(seek(at, 1, TURN.concat(ROUND))); },
    "next-round": function () { go(seek(at, 1, ROUND)); },
    "first": function () { go(0); },
    "last": function () { go(events.length - 1); }
  };
  Object.keys(actions).forEach(function (id) {
    var b = document.getElementById(id);
    if (b) b.addEventListener("click", actions[id]);
  });
  slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
  document.addEventListener("keydown", function (ev) {
    var key = {"ArrowRight": ev.shiftKey ? "next-turn" : "next", "ArrowLeft": ev.shiftKey ? "prev-turn" : "prev",
               "ArrowDown": "next-turn", "ArrowUp": "prev-turn", "PageDown": "next-round", "PageUp": "prev-round",
               "Home": "first", "End": "last"}[ev.key];
    if (key && ev.target !== slider) { ev.preventDefault(); actions[key](); }
  });
  window.playtestReplay = {go: go, at: function () { return at; }, states: states, events: events};
  go(0);
})();
