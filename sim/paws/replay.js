// Paws in Peril on the replay page: the hex board (tiles by kind, owners, bricks, barricades, the
// players' animals), each player's HP, lives, item cards, monster cards and VP, the decks and the fight
// in progress. window.playtestDraw(svg, state, meta, event) redraws the SVG from one drawn state.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLOURS = ["#d1495b", "#00798c", "#edae49", "#66a182"];
  var FILL = {desert: "#f1d9a7", home: "#c9a27e", mansion: "#b59fd1", chest: "#f3e27a", forest: "#8fc480", empty: "none"};
  function el(parent, tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function hexPoints(cx, cy, s) {
    var pts = [];
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 180 * (60 * i - 30);
      pts.push((cx + s * Math.cos(a)).toFixed(1) + "," + (cy + s * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }
  window.playtestDraw = function (svg, st, meta, ev) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var n = meta.players.length;
    var size = Math.min(40, 250 / (Math.sqrt(3) * (meta.radius + 0.6)));
    var ox = 250, oy = 270;
    var centre = meta.coords.map(function (c) {
      return [ox + size * Math.sqrt(3) * (c[0] + c[1] / 2), oy + size * 1.5 * c[1]];
    });
    var board = el(svg, "g", {id: "hexes"});
    st.tile.forEach(function (kind, c) {
      var x = centre[c][0], y = centre[c][1];
      var g = el(board, "g", {"class": "tile", "data-cell": String(c), "data-name": meta.cells[c], "data-kind": kind,
                              "data-owner": String(st.owner[c]), "data-brick": String(st.brick[c]),
                              "data-barricade": String(st.barricade[c])});
      var owned = st.owner[c] >= 0;
      el(g, "polygon", {points: hexPoints(x, y, size - 1), fill: FILL[kind] || "#eee",
                        stroke: owned ? COLOURS[st.owner[c]] : (kind === "empty" ? "#ddd" : "#777"),
                        "stroke-width": owned ? 5 : 1, "stroke-dasharray": kind === "empty" ? "3,3" : ""});
      el(g, "text", {x: x, y: y - size * 0.45, "text-anchor": "middle", "font-size": 10, fill: "#333"}, meta.cells[c]);
      if (kind !== "empty" && kind !== "desert")
        el(g, "text", {x: x, y: y - size * 0.15, "text-anchor": "middle", "font-size": 9, fill: "#333"}, kind);
      if (owned)
        el(g, "text", {"class": "owner", x: x, y: y + size * 0.7, "text-anchor": "middle", "font-size": 9,
                       "font-weight": "bold", fill: COLOURS[st.owner[c]]}, "P" + (st.owner[c] + 1));
      else if (st.brick[c] >= 0)
        el(g, "rect", {"class": "brick", x: x - 5, y: y + size * 0.45, width: 10, height: 6,
                       fill: COLOURS[st.brick[c]], stroke: "#333"});
      if (st.barricade[c] >= 0)
        el(g, "rect", {"class": "barricade", x: x - size * 0.6, y: y + size * 0.05, width: size * 1.2, height: 4,
                       fill: "#5a3a1a", stroke: COLOURS[st.barricade[c]], "stroke-width": 1.5});
    });
    // the players' animals: one token per player with lives, spread around their tile's centre
    for (var s = 0; s < n; s++) {
      if (st.lives[s] <= 0) continue;
      var p = centre[st.pos[s]], a = Math.PI * 2 * s / n;
      var t = el(svg, "g", {"class": "token", "data-seat": String(s), "data-cell": String(st.pos[s])});
      el(t, "circle", {cx: p[0] + Math.cos(a) * size * 0.38, cy: p[1] + 4 + Math.sin(a) * size * 0.3, r: size * 0.2,
                       fill: COLOURS[s], stroke: st.seat === s ? "#000" : "#fff", "stroke-width": st.seat === s ? 2.5 : 1});
      el(t, "text", {x: p[0] + Math.cos(a) * size * 0.38, y: p[1] + 7 + Math.sin(a) * size * 0.3, "text-anchor": "middle",
                     "font-size": 9, fill: "#fff", "font-weight": "bold"}, String(s + 1));
    }
    // the players' panel
    var px = 520, py = 16;
    el(svg, "text", {x: px, y: py, "font-size": 13, "font-weight": "bold"},
       "Round " + st.round + (st.seat >= 0 ? " \u00b7 " + meta.players[st.seat] + " \u00b7 " + st.ap + " AP" : ""));
    py += 18;
    el(svg, "text", {x: px, y: py, "font-size": 11}, "monster deck " + st.monster_deck + " \u00b7 item deck " + st.item_deck);
    if (st.team_vp && st.team_vp.length) {
      py += 16;
      el(svg, "text", {"class": "team-vp", x: px, y: py, "font-size": 11, "font-weight": "bold"},
         meta.teams.map(function (m, t) { return "Team " + (t + 1) + " (" + m.join(" & ") + "): " + st.team_vp[t] + " VP"; }).join("  "));
    }
    py += 10;
    for (s = 0; s < n; s++) {
      var row = el(svg, "g", {"class": "player", "data-seat": String(s), "data-hp": String(st.hp[s]),
                              "data-lives": String(st.lives[s]), "data-vp": String(st.vp[s]),
                              "data-hand": String(st.hand[s])});
      py += 18;
      el(row, "rect", {x: px, y: py - 11, width: 12, height: 12, fill: COLOURS[s]});
      // a long bot spec (a search bot's parameters) is cut to fit the panel; the whole spec is the row's tooltip
      var bot = meta.bots[s].length > 18 ? meta.bots[s].slice(0, 17) + "\u2026" : meta.bots[s];
      el(row, "title", {}, meta.players[s] + ": " + meta.bots[s]);
      el(row, "text", {x: px + 18, y: py, "font-size": 12, "font-weight": "bold", "text-decoration": st.lives[s] > 0 ? "" : "line-through"},
         meta.players[s] + " (" + bot + ")" + (st.protected[s] ? " \u00b7 protected" : ""));
      py += 15;
      el(row, "rect", {x: px + 18, y: py - 9, width: 100, height: 8, fill: "#eee", stroke: "#999"});
      el(row, "rect", {x: px + 18, y: py - 9, width: 100 * st.hp[s] / meta.max_hp, height: 8, fill: COLOURS[s]});
      el(row, "text", {x: px + 124, y: py, "font-size": 11},
         "HP " + st.hp[s] + " \u00b7 lives " + st.lives[s] + " \u00b7 VP " + st.vp[s]);
      py += 14;
      el(row, "text", {x: px + 18, y: py, "font-size": 11},
         st.hand[s] + " item cards \u00b7 " + st.barricades[s] + " barricades" + (st.poison[s] ? " \u00b7 poisoned " + st.poison[s] : ""));
      if (st.tiles_held && st.tiles_held.length) {
        py += 13;
        el(row, "text", {x: px + 18, y: py, "font-size": 10, fill: "#444"},
           "tiles held: mansion " + st.tiles_held[s][0] + ", home " + st.tiles_held[s][1] + ", chest " +
           st.tiles_held[s][2] + ", forest " + st.tiles_held[s][3]);
      }
      var mons = st.monsters[s];
      for (var k = 0; k < mons.length; k++) {
        py += 13;
        el(row, "text", {x: px + 26, y: py, "font-size": 10, fill: "#444"}, mons[k]);
      }
    }
    if (st.fight) {
      py += 24;
      var f = st.fight;
      var names = f.seats.map(function (x) { return x >= 0 ? meta.players[x] : f.monster + " (HP " + f.monster_hp + ")"; });
      el(svg, "text", {"class": "fight", x: px, y: py, "font-size": 12, "font-weight": "bold", fill: "#a00"},
         "Fight (" + f.kind + "): " + names.join(" vs "));
    }
    if (st.over) {
      el(svg, "text", {x: 20, y: 620, "font-size": 14, "font-weight": "bold"}, "Game over: " + (st.end_reason || ""));
    }
    // legend
    var lx = 20, ly = 560;
    ["desert", "home", "mansion", "chest", "forest"].forEach(function (kind, i) {
      el(svg, "rect", {x: lx + i * 80, y: ly, width: 12, height: 12, fill: FILL[kind], stroke: "#777"});
      el(svg, "text", {x: lx + i * 80 + 16, y: ly + 10, "font-size": 11}, kind);
    });
    el(svg, "text", {x: lx, y: ly + 30, "font-size": 10, fill: "#555"},
       "coloured border + Pn: owner \u00b7 small block: brick \u00b7 dark bar: barricade \u00b7 circles: players");
  };
})();
