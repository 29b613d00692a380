// Tales are Real on the replay page: each commander's battle line (creature cards with their life
// markers, equipment, potion, Champion, exhausted cards greyed), equipment hands, decks and the
// graveyard. window.playtestDraw(svg, state, meta, event) redraws the SVG from one drawn state.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLOURS = ["#8a3b2e", "#2e5e8a", "#b5651d", "#3f7f5f"];
  function el(parent, tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  // text wrapped at word boundaries into lines of at most maxChars, one tspan a line (none is cut); returns
  // the number of lines, so the next item is placed below the last one
  function wrap(parent, x, y, text, maxChars, lineH, attrs) {
    var words = text.split(" "), lines = [], cur = "";
    words.forEach(function (w) {
      if (cur && (cur + " " + w).length > maxChars) { lines.push(cur); cur = w; } else { cur = cur ? cur + " " + w : w; }
    });
    if (cur || !lines.length) lines.push(cur);
    var t = el(parent, "text", Object.assign({x: x, y: y}, attrs));
    lines.forEach(function (line, i) { el(t, "tspan", {x: x, dy: i === 0 ? 0 : lineH}, line); });
    return lines.length;
  }
  var WIDTH = 760, HEAD_CHARS = 100, NOTE_CHARS = 118;   // characters a line holds at 12 and 10 px
  window.playtestDraw = function (svg, st, meta, ev) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var n = meta.players.length, army = meta.army;
    var cw = Math.min(92, 470 / army), ch = 118, gap = n > 2 ? 14 : 60;
    // side 0 on top, side 1 below; in 2 vs. 2 each side's two commanders one above the other
    var order = [];
    for (var t = 0; t < 2; t++) for (var s = 0; s < n; s++) if (s % 2 === t) order.push(s);
    el(svg, "text", {x: 10, y: 16, "font-size": 13, "font-weight": "bold"},
       "Round " + st.round + " \u00b7 turn " + st.turn + " \u00b7 losses " + st.team_losses.join(" v ") +
       (st.over ? " \u00b7 game over: " + st.end_reason : ""));
    var fightAt = {};
    if (st.fight) { fightAt[st.fight[0].join(",")] = "attacker"; fightAt[st.fight[1].join(",")] = "defender"; }
    var cursor = 30;                      // each commander's block starts below the one before, however tall
    order.forEach(function (seat) {
      var y0 = cursor;
      var g = el(svg, "g", {"class": "line", "data-seat": String(seat)});
      var head = wrap(g, 10, y0 + 12, meta.players[seat] + " \u00b7 " + meta.people[seat] + " (" + meta.bots[seat] +
         ") \u00b7 losses " + st.losses[seat] + " \u00b7 creature deck " + st.deck[seat] + " \u00b7 equipment in hand: " +
         (st.hand[seat].join(", ") || "none"), HEAD_CHARS, 15,
         {"class": "heading", "font-size": 12, "font-weight": "bold", fill: COLOURS[seat]});
      var top = y0 + 20 + (head - 1) * 15;
      st.lines[seat].forEach(function (c, k) {
        var x = 10 + k * (cw + 6), y = top;
        var slot = el(g, "g", {"class": "slot", "data-seat": String(seat), "data-slot": String(k),
                               "data-card": c ? c.card : "", "data-life": c ? String(c.life) : "",
                               "data-exhausted": c && c.exhausted ? "1" : "0"});
        if (!c) {
          el(slot, "rect", {x: x, y: y, width: cw, height: ch, fill: "none", stroke: "#bbb", "stroke-dasharray": "4,3"});
          el(slot, "text", {x: x + cw / 2, y: y + ch / 2, "text-anchor": "middle", "font-size": 10, fill: "#999"}, "empty");
          return;
        }
        var role = fightAt[seat + "," + k];
        el(slot, "rect", {x: x, y: y, width: cw, height: ch, rx: 5,
                          fill: c.destroyed ? "#f4c7c3" : (c.exhausted ? "#ddd" : "#fffaf0"),
                          stroke: role ? "#d00" : COLOURS[seat], "stroke-width": role ? 3 : (c.champion ? 2.5 : 1)});
        el(slot, "text", {x: x + 4, y: y + 13, "font-size": 10, "font-weight": "bold"},
           (c.champion ? "\u2605 " : "") + clip(c.card, c.champion ? 13 : 15));
        el(slot, "text", {x: x + 4, y: y + 26, "font-size": 9}, "attack " + c.attack + (c.elite ? " \u00b7 elite" : ""));
        // life markers: filled for life left, hollow for damage taken
        var per = Math.max(1, Math.floor((cw - 8) / 8));
        for (var m = 0; m < c.life_max; m++) {
          el(slot, "circle", {"class": m < c.life ? "life" : "lost", cx: x + 7 + (m % per) * 8, cy: y + 36 + Math.floor(m / per) * 8,
                              r: 3, fill: m < c.life ? "#c0392b" : "none", stroke: "#c0392b"});
        }
        el(slot, "text", {x: x + 4, y: y + 62, "font-size": 9}, "life " + c.life + "/" + c.life_max);
        c.gear.forEach(function (gname, i) {
          el(slot, "text", {x: x + 4, y: y + 75 + i * 11, "font-size": 9, fill: "#444"}, "\u2694 " + clip(gname, 15));
        });
        if (c.potion) el(slot, "text", {x: x + 4, y: y + ch - 16, "font-size": 9, fill: "#6a1b9a"}, clip(c.potion, 17));
        if (c.exhausted) el(slot, "text", {x: x + 4, y: y + ch - 4, "font-size": 9, "font-style": "italic", fill: "#555"}, "exhausted");
        if (role) el(slot, "text", {x: x + cw - 4, y: y + ch - 4, "text-anchor": "end", "font-size": 9, fill: "#d00"}, role);
      });
      var grave = wrap(g, 10, top + ch + 16, "graveyard: " + (st.graveyard[seat].join(", ") || "empty") +
         " \u00b7 equipment graveyard " + st.equipment_graveyard[seat], NOTE_CHARS, 13,
         {"class": "graveyard", "font-size": 10, fill: "#555"});
      cursor = top + ch + 16 + (grave - 1) * 13 + gap;
      g.setAttribute("data-bottom", String(cursor - gap));
    });
    svg.setAttribute("viewBox", "0 0 " + WIDTH + " " + Math.max(640, Math.ceil(cursor)));
  };
})();
