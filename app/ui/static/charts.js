// Inline SVG charts for the dashboard: horizontal bars (grouped, signed or log scale) and lines.
// Each series has a fill pattern and each bar its value printed beside it, so no chart depends on
// colour alone; every chart comes with its numbers in a table (see app.js) for screen readers.
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  // Colours pass 3:1 against white for graphical objects (WCAG 1.4.11).
  const COLOURS = ["#1f5fa8", "#b34700", "#2d7a2d", "#7a3d99", "#8a6d00", "#a3214c"];
  const PATTERNS = ["solid", "hatch", "dots", "cross", "vertical", "grid"];
  const DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4"];
  let counter = 0;

  function el(name, attrs, text) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fmt(v) {
    if (v === null || v === undefined || Number.isNaN(v)) return "–";
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
    return Number(v.toPrecision(3)).toString();
  }

  // Round axis limits out to a 1, 2, 2.5 or 5 step so ticks read as round numbers.
  function niceRange(lo, hi) {
    if (hi === lo) hi = lo + 1;
    const raw = (hi - lo) / 4;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = mag * ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) || 10);
    return [Math.floor(lo / step + 1e-9) * step, Math.ceil(hi / step - 1e-9) * step, step];
  }

  function patternDef(defs, id, kind, colour) {
    const p = el("pattern", { id, patternUnits: "userSpaceOnUse", width: 8, height: 8 });
    p.appendChild(el("rect", { width: 8, height: 8, fill: kind === "solid" ? colour : "#fff" }));
    const stroke = { stroke: colour, "stroke-width": 2 };
    if (kind === "hatch") p.appendChild(el("path", { d: "M-2,10 L10,-2 M-2,2 L2,-2 M6,10 L10,6", ...stroke }));
    if (kind === "dots") p.appendChild(el("circle", { cx: 4, cy: 4, r: 2.2, fill: colour }));
    if (kind === "cross") p.appendChild(el("path", { d: "M0,0 L8,8 M8,0 L0,8", ...stroke, "stroke-width": 1.5 }));
    if (kind === "vertical") p.appendChild(el("path", { d: "M2,0 L2,8 M6,0 L6,8", ...stroke }));
    if (kind === "grid") p.appendChild(el("path", { d: "M0,4 L8,4 M4,0 L4,8", ...stroke }));
    defs.appendChild(p);
  }

  function frame(title, width, height) {
    const id = "chart" + ++counter;
    const svg = el("svg", {
      viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-labelledby": id + "-t",
      class: "chart", "font-size": 12, "font-family": "system-ui, sans-serif",
    });
    svg.appendChild(el("title", { id: id + "-t" }, title));
    return { svg, id, defs: svg.appendChild(el("defs")) };
  }

  function legend(svg, x, y, entries) {
    // entries: [{name, fill, dash?}] drawn in one row.
    let cx = x;
    for (const e of entries) {
      const g = svg.appendChild(el("g", { class: "legend-item" }));
      if (e.dash !== undefined) {
        g.appendChild(el("line", { x1: cx, y1: y, x2: cx + 22, y2: y, stroke: e.stroke, "stroke-width": 2.5, "stroke-dasharray": e.dash }));
      } else {
        g.appendChild(el("rect", { x: cx, y: y - 7, width: 18, height: 14, fill: e.fill, stroke: "#222", "stroke-width": 0.8 }));
      }
      g.appendChild(el("text", { x: cx + 26, y: y + 4 }, e.name));
      cx += 40 + 7.2 * e.name.length;
    }
  }

  // opts: {title, categories: [label], series: [{name, values: [number|null]}], log: bool,
  //        barPattern: (categoryIndex) => index into PATTERNS (single series only), notes: [text],
  //        legend: [{name, pattern}] (with barPattern), axisLabel}
  function bars(opts) {
    const cats = opts.categories;
    const series = opts.series;
    const nS = series.length;
    const labelW = Math.min(220, 14 + 7.2 * Math.max(4, ...cats.map((c) => String(c).length)));
    const noteW = opts.notes ? 80 : 0;
    const width = opts.width || 640;
    const plotW = width - labelW - noteW - 70;
    const barH = nS > 1 ? 12 : 16;
    const rowH = nS * barH + 8;
    const top = nS > 1 || opts.legend ? 40 : 16;
    const height = top + cats.length * rowH + 36;
    const { svg, id, defs } = frame(opts.title, width, height);
    const all = series.flatMap((s) => s.values).filter((v) => v !== null && v !== undefined && Number.isFinite(v));
    const log = Boolean(opts.log) && all.length > 0 && all.every((v) => v > 0);
    let lo, hi, step;
    if (log) {
      lo = Math.floor(Math.log10(Math.min(...all)));
      hi = Math.ceil(Math.log10(Math.max(...all)));
      if (hi === lo) hi = lo + 1;
    } else {
      [lo, hi, step] = niceRange(Math.min(0, ...all), Math.max(0, ...all));
    }
    // Room left of the plot for the value printed beside a negative bar.
    const padL = !log && lo < 0 ? 52 : 0;
    const t = (v) => (log ? Math.log10(v) : v);
    const x = (v) => labelW + padL + ((t(v) - lo) / (hi - lo)) * (plotW - padL);
    const x0 = log ? x(Math.pow(10, lo)) : x(0);

    const fills = series.map((s, i) => {
      const pid = `${id}-p${i}`;
      patternDef(defs, pid, PATTERNS[i % PATTERNS.length], COLOURS[i % COLOURS.length]);
      return `url(#${pid})`;
    });
    const markFills = {};
    if (opts.barPattern) {
      for (let k = 0; k < PATTERNS.length; k++) {
        const pid = `${id}-m${k}`;
        patternDef(defs, pid, PATTERNS[k], COLOURS[0]);
        markFills[k] = `url(#${pid})`;
      }
    }
    if (nS > 1) legend(svg, labelW, 16, series.map((s, i) => ({ name: s.name, fill: fills[i] })));
    else if (opts.legend && opts.barPattern) legend(svg, labelW, 16, opts.legend.map((l) => ({ name: l.name, fill: markFills[l.pattern] })));

    // Axis: decades on a log scale, five even ticks otherwise.
    const axisY = top + cats.length * rowH + 4;
    const ticks = [];
    if (log) for (let k = lo; k <= hi; k++) ticks.push([Math.pow(10, k), k === 0 ? "1" : `10^${k}`]);
    else for (let v = lo; v <= hi + step / 2; v += step) ticks.push([v, fmt(Math.abs(v) < step / 1e6 ? 0 : v)]);
    const axis = svg.appendChild(el("g", { class: "axis" }));
    for (const [v, label] of ticks) {
      axis.appendChild(el("line", { x1: x(v), x2: x(v), y1: top - 4, y2: axisY, stroke: "#ccc" }));
      axis.appendChild(el("text", { x: x(v), y: axisY + 14, "text-anchor": "middle" }, label));
    }
    if (!log) axis.appendChild(el("line", { x1: x0, x2: x0, y1: top - 4, y2: axisY, stroke: "#333" }));
    if (opts.axisLabel || log) {
      const text = (opts.axisLabel || "") + (log ? " (log scale)" : "");
      axis.appendChild(el("text", { x: labelW + plotW / 2, y: axisY + 30, "text-anchor": "middle", class: "axis-label" }, text.trim()));
    }

    cats.forEach((cat, ci) => {
      const y0 = top + ci * rowH;
      const row = svg.appendChild(el("g", { class: "bar-row", "data-label": cat }));
      row.appendChild(el("text", { x: labelW - 8, y: y0 + (nS * barH) / 2 + 4, "text-anchor": "end", class: "bar-label" }, cat));
      series.forEach((s, si) => {
        const v = s.values[ci];
        if (v === null || v === undefined || !Number.isFinite(v) || (log && v <= 0)) return;
        const a = x0, b = x(v);
        const fill = opts.barPattern ? markFills[opts.barPattern(ci) % PATTERNS.length] : fills[si];
        const rect = el("rect", {
          x: Math.min(a, b), y: y0 + si * barH, width: Math.max(1, Math.abs(b - a)), height: barH - 2,
          fill, stroke: COLOURS[opts.barPattern ? 0 : si % COLOURS.length], "stroke-width": 1, class: "bar",
        });
        rect.appendChild(el("title", {}, `${cat}${nS > 1 ? " · " + s.name : ""}: ${fmt(v)}`));
        row.appendChild(rect);
        const right = b >= a;
        row.appendChild(el("text", {
          x: right ? Math.max(a, b) + 4 : Math.min(a, b) - 4, y: y0 + si * barH + barH - 4,
          "text-anchor": right ? "start" : "end", class: "bar-value",
        }, fmt(v)));
      });
      if (opts.notes && opts.notes[ci]) {
        row.appendChild(el("text", { x: width - noteW + 4, y: y0 + (nS * barH) / 2 + 4, class: "bar-note" }, opts.notes[ci]));
      }
    });
    return svg;
  }

  // opts: {title, xs: [number], series: [{name, values: [number]}], xLabel, yLabel}
  function lines(opts) {
    const width = opts.width || 640, height = 260;
    const left = 64, right = 16, top = opts.series.length > 1 ? 40 : 16, bottom = 44;
    const { svg } = frame(opts.title, width, height);
    const xs = opts.xs;
    const vals = opts.series.flatMap((s) => s.values).filter((v) => Number.isFinite(v));
    if (!xs.length || !vals.length) return svg;
    const [ylo, yhi, ystep] = niceRange(Math.min(...vals), Math.max(...vals));
    const xlo = Math.min(...xs), xhi = Math.max(...xs) === xlo ? xlo + 1 : Math.max(...xs);
    const px = (v) => left + ((v - xlo) / (xhi - xlo)) * (width - left - right);
    const py = (v) => top + (1 - (v - ylo) / (yhi - ylo)) * (height - top - bottom);
    const axis = svg.appendChild(el("g", { class: "axis" }));
    for (let v = ylo; v <= yhi + ystep / 2; v += ystep) {
      axis.appendChild(el("line", { x1: left, x2: width - right, y1: py(v), y2: py(v), stroke: "#ddd" }));
      axis.appendChild(el("text", { x: left - 6, y: py(v) + 4, "text-anchor": "end" }, fmt(v)));
    }
    for (let k = 0; k <= 4; k++) {
      const v = Math.round(xlo + ((xhi - xlo) * k) / 4);
      axis.appendChild(el("text", { x: px(v), y: height - bottom + 16, "text-anchor": "middle" }, String(v)));
    }
    axis.appendChild(el("text", { x: (left + width - right) / 2, y: height - 8, "text-anchor": "middle", class: "axis-label" }, opts.xLabel || ""));
    axis.appendChild(el("text", { x: 12, y: top + (height - top - bottom) / 2, transform: `rotate(-90 12 ${top + (height - top - bottom) / 2})`, "text-anchor": "middle", class: "axis-label" }, opts.yLabel || ""));
    opts.series.forEach((s, si) => {
      const pts = s.values.map((v, i) => (Number.isFinite(v) ? `${px(xs[i])},${py(v)}` : null)).filter(Boolean);
      const line = el("polyline", {
        points: pts.join(" "), fill: "none", stroke: COLOURS[si % COLOURS.length], "stroke-width": si === 0 ? 2.5 : 1.5,
        "stroke-dasharray": DASHES[si % DASHES.length], class: "line", "data-series": s.name,
      });
      line.appendChild(el("title", {}, s.name));
      svg.appendChild(line);
      // A mark at every point, so a single-round fit (or a live curve's first round) is visible.
      s.values.forEach((v, i) => {
        if (!Number.isFinite(v)) return;
        const dot = el("circle", { cx: px(xs[i]), cy: py(v), r: si === 0 ? 4 : 3, fill: COLOURS[si % COLOURS.length], class: "point", "data-series": s.name });
        dot.appendChild(el("title", {}, `${s.name}, round ${xs[i]}: ${fmt(v)}`));
        svg.appendChild(dot);
      });
    });
    if (opts.series.length > 1) {
      legend(svg, left, 16, opts.series.map((s, si) => ({ name: s.name, stroke: COLOURS[si % COLOURS.length], dash: DASHES[si % DASHES.length] })));
    }
    return svg;
  }

  window.Charts = { bars, lines, fmt };
})();
