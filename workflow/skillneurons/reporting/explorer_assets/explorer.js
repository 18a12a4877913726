// The neuron explorer (skillneurons.reporting.explorer_page): reads window.EXPLORER,
// filled by the data/*.js files next to the page, and draws the overview, one task's
// table and one neuron's panel. Plain DOM and SVG: the page needs no network.
"use strict";

// Okabe-Ito: a colour-blind-safe palette, one colour per label.
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];
const SVG = "http://www.w3.org/2000/svg";

window.addEventListener("error", (event) => {
  document.getElementById("errors").textContent += `${event.message}\n`;
});

const state = { task: null, sort: { key: "best", descending: false }, selected: null };

function el(tag, attributes = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function svgEl(tag, attributes = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function fmt(value, digits = 3) {
  return value === null || value === undefined ? "" : Number(value).toFixed(digits);
}

function precision(value, digits = 3) {
  return value === null || value === undefined ? "" : Number(value).toPrecision(digits);
}

function flag(value) {
  return value === null || value === undefined ? "" : value ? "\u2713" : "";
}

// ------------------------------------------------------------------ overview

function heatTable(counts, tasks, layers, caption) {
  const table = el("table", { class: "heat" });
  table.appendChild(el("caption", {}, caption));
  const head = el("tr");
  head.appendChild(el("th", {}, "task \\ layer"));
  for (let layer = 0; layer < layers; layer++) head.appendChild(el("th", {}, String(layer)));
  table.appendChild(head);
  const most = Math.max(1, ...tasks.flatMap((task) => counts[task] || []));
  for (const task of tasks) {
    const row = el("tr");
    row.appendChild(el("th", {}, task));
    for (let layer = 0; layer < layers; layer++) {
      const value = counts[task] ? counts[task][layer] : null;
      const cell = el("td", {}, value === null ? "\u2013" : String(value));
      if (value !== null) {
        const shade = Math.round(255 - 150 * (value / most));
        cell.style.background = `rgb(${shade}, ${Math.round(shade * 0.9 + 25)}, 255)`;
      }
      row.appendChild(cell);
    }
    table.appendChild(row);
  }
  return table;
}

function drawOverview() {
  const overview = window.EXPLORER.overview;
  const box = document.getElementById("overview");
  const layers = window.EXPLORER.tasks[overview.tasks[0]].layers;
  box.appendChild(
    heatTable(overview.layer_counts.a, overview.tasks, layers, "Paper A's top set (predictivity)")
  );
  box.appendChild(
    heatTable(overview.layer_counts.b, overview.tasks, layers, "Paper B's top set (relevance)")
  );
}

// ------------------------------------------------------------------ task table

const COLUMNS = [
  { key: "layer", label: "layer", value: (r) => r.layer, text: (r) => String(r.layer) },
  { key: "neuron", label: "neuron", value: (r) => r.neuron, text: (r) => String(r.neuron) },
  { key: "a_score", label: "A predictivity", value: (r) => r.a_score, text: (r) => fmt(r.a_score) },
  { key: "a_rank", label: "A rank", value: (r) => r.a_rank, text: (r) => String(r.a_rank + 1) },
  { key: "a_top", label: "A top", value: (r) => (r.a_top ? 1 : 0), text: (r) => flag(r.a_top), cls: "flag" },
  { key: "b_relevance", label: "B relevance", value: (r) => r.b_relevance, text: (r) => precision(r.b_relevance) },
  { key: "b_rank", label: "B rank", value: (r) => r.b_rank, text: (r) => (r.b_rank === null ? "" : String(r.b_rank + 1)) },
  { key: "b_top", label: "B top", value: (r) => (r.b_top ? 1 : 0), text: (r) => flag(r.b_top), cls: "flag" },
  {
    key: "perturbed",
    label: "acc. once perturbed (rate)",
    value: (r) => (r.perturbed ? r.perturbed[1] : null),
    text: (r) => (r.perturbed ? `${fmt(r.perturbed[1])} (${r.perturbed[0]})` : ""),
  },
];

function bestRank(row) {
  return row.b_rank === null ? row.a_rank : Math.min(row.a_rank, row.b_rank);
}

function visibleRows() {
  const data = window.EXPLORER.tasks[state.task];
  const text = document.getElementById("filter").value.trim();
  const which = document.getElementById("top-filter").value;
  let rows = data.rows.filter((row) => {
    if (text && !`L${row.layer}:${row.neuron}`.includes(text)) return false;
    if (which === "a" && !row.a_top) return false;
    if (which === "b" && !row.b_top) return false;
    if (which === "both" && !(row.a_top && row.b_top)) return false;
    return true;
  });
  const column = COLUMNS.find((c) => c.key === state.sort.key);
  const key = column ? column.value : bestRank;
  const sign = state.sort.descending ? -1 : 1;
  rows = rows.slice().sort((x, y) => {
    const a = key(x);
    const b = key(y);
    if (a === null && b === null) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    return sign * (a - b);
  });
  return rows;
}

function drawTable() {
  const table = document.getElementById("neuron-table");
  table.textContent = "";
  const head = el("tr");
  for (const column of COLUMNS) {
    const th = el("th", { "data-key": column.key }, column.label);
    if (state.sort.key === column.key) th.className = state.sort.descending ? "sorted-desc" : "sorted-asc";
    th.addEventListener("click", () => {
      const same = state.sort.key === column.key;
      state.sort = { key: column.key, descending: same ? !state.sort.descending : false };
      drawTable();
    });
    head.appendChild(th);
  }
  const thead = el("thead");
  thead.appendChild(head);
  table.appendChild(thead);
  const body = el("tbody");
  const rows = visibleRows();
  for (const row of rows) {
    const tr = el("tr", { "data-layer": row.layer, "data-neuron": row.neuron });
    if (state.selected === row) tr.className = "selected";
    for (const column of COLUMNS) {
      tr.appendChild(el("td", column.cls ? { class: column.cls } : {}, column.text(row)));
    }
    tr.addEventListener("click", () => {
      state.selected = row;
      for (const other of body.querySelectorAll("tr.selected")) other.className = "";
      tr.className = "selected";
      drawPanel(row);
    });
    body.appendChild(tr);
  }
  table.appendChild(body);
  document.getElementById("row-count").textContent = `${rows.length} of ${window.EXPLORER.tasks[state.task].rows.length} neurons`;
}

function drawTaskNote() {
  const data = window.EXPLORER.tasks[state.task];
  const overview = window.EXPLORER.overview;
  const parts = [
    `${data.layers} layers x ${data.neurons} neurons; the table lists every neuron among ` +
      `either paper's best ${overview.top_neurons}.`,
    `Top sets: the top ${100 * overview.fraction}% (${overview.scope}): ` +
      `paper A ${data.a_top_size} neurons, paper B ${data.b_top_size === null ? "not run on this task" : data.b_top_size}.`,
  ];
  if (data.unperturbed !== null) {
    parts.push(`Paper A's perturbation (own order, trial mean): accuracy ${fmt(data.unperturbed)} unperturbed.`);
  }
  if (data.deactivation) {
    const d = data.deactivation;
    parts.push(
      `B-T1 (neurons identified on the ${overview.identify_on || "?"} model): ${d.metric} ` +
        `${fmt(d.original)} originally, ${fmt(d.task)} with the task's neurons deactivated` +
        (d.random === null ? "." : `, ${fmt(d.random)} with random ones.`)
    );
  }
  document.getElementById("task-note").textContent = parts.join(" ");
}

function selectTask(task) {
  state.task = task;
  state.selected = null;
  document.getElementById("panel").textContent = "Click a row to see the neuron.";
  drawTaskNote();
  drawTable();
}

// ------------------------------------------------------------------ neuron panel

function histogram(row, labelNames) {
  const width = 440;
  const height = 220;
  const margin = { left: 44, right: 12, top: 12, bottom: 34 };
  const hist = row.histogram;
  const bins = hist.counts[0].length;
  // Bars stacked by label: a bin's height is its count over all labels.
  const totals = hist.counts[0].map((_, bin) => hist.counts.reduce((sum, counts) => sum + counts[bin], 0));
  const most = Math.max(1, ...totals);
  const x = (value) => margin.left + ((value - hist.low) / (hist.high - hist.low)) * (width - margin.left - margin.right);
  const y = (count) => height - margin.bottom - (count / most) * (height - margin.top - margin.bottom);
  const svg = svgEl("svg", { width, height, id: "histogram", role: "img" });
  const step = (hist.high - hist.low) / bins;
  const below = new Array(bins).fill(0);
  hist.counts.forEach((counts, label) => {
    counts.forEach((count, bin) => {
      const left = x(hist.low + bin * step);
      const right = x(hist.low + (bin + 1) * step);
      svg.appendChild(
        svgEl("rect", {
          class: "bar",
          "data-label": label,
          "data-count": count,
          x: left,
          width: Math.max(0, right - left - 0.5),
          y: y(below[bin] + count),
          height: y(below[bin]) - y(below[bin] + count),
          fill: PALETTE[label % PALETTE.length],
        })
      );
      below[bin] += count;
    });
  });
  const axisY = y(0);
  svg.appendChild(svgEl("line", { x1: margin.left, x2: width - margin.right, y1: axisY, y2: axisY, stroke: "#444" }));
  svg.appendChild(svgEl("line", { x1: margin.left, x2: margin.left, y1: margin.top, y2: axisY, stroke: "#444" }));
  for (const value of [hist.low, (hist.low + hist.high) / 2, hist.high]) {
    svg.appendChild(svgEl("text", { x: x(value), y: axisY + 14, "text-anchor": "middle", "font-size": 11 }, fmt(value, 2)));
  }
  svg.appendChild(svgEl("text", { x: margin.left - 4, y: margin.top + 8, "text-anchor": "end", "font-size": 11 }, String(most)));
  svg.appendChild(svgEl("text", { x: margin.left - 4, y: axisY, "text-anchor": "end", "font-size": 11 }, "0"));
  svg.appendChild(
    svgEl("text", { x: (margin.left + width) / 2, y: height - 4, "text-anchor": "middle", "font-size": 11 },
      `activation at prompt token ${row.token} (test split, trial 0)`)
  );
  if (row.baseline !== null) {
    const bx = x(row.baseline);
    svg.appendChild(svgEl("line", { id: "baseline", x1: bx, x2: bx, y1: margin.top, y2: axisY, stroke: "#000", "stroke-dasharray": "4 3" }));
    svg.appendChild(svgEl("text", { x: bx + 3, y: margin.top + 10, "font-size": 11 }, "baseline (Eq. 3)"));
  }
  const legend = el("div", { class: "legend" });
  labelNames.forEach((name, label) => {
    const item = el("span");
    const swatch = el("i");
    swatch.style.background = PALETTE[label % PALETTE.length];
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(`${name} (${hist.counts[label].reduce((a, b) => a + b, 0)})`));
    legend.appendChild(item);
  });
  return [svg, legend];
}

function layerStrip(row, layers) {
  const strip = el("div", { class: "strip", id: "layer-strip" });
  for (let layer = 0; layer < layers; layer++) {
    strip.appendChild(el("span", layer === row.layer ? { class: "here" } : {}, String(layer)));
  }
  return strip;
}

function otherRanks(row) {
  const table = el("table", { id: "other-ranks" });
  const head = el("tr");
  for (const label of ["task", "A rank", "B rank"]) head.appendChild(el("th", {}, label));
  table.appendChild(head);
  for (const [task, [a, b]] of Object.entries(row.other)) {
    const tr = el("tr");
    tr.appendChild(el("td", {}, task));
    tr.appendChild(el("td", {}, String(a + 1)));
    tr.appendChild(el("td", {}, b === null ? "" : String(b + 1)));
    table.appendChild(tr);
  }
  return table;
}

function topWords(row, data) {
  const box = el("div", { class: "words", id: "top-words" });
  const words = data.words;
  if (!words) {
    box.textContent = "Word selectivity (A-T2) did not run for this task.";
    return box;
  }
  if (words.layer !== row.layer || words.neuron !== row.neuron) {
    box.textContent = `A-T2 lists words for the task's top skill neuron only (layer ${words.layer}, neuron ${words.neuron}).`;
    return box;
  }
  for (const measure of ["cosine", "activation"]) {
    if (!words[measure]) continue;
    for (const direction of ["top", "bottom"]) {
      const line = el("div");
      line.appendChild(el("b", {}, `${measure}, ${direction}: `));
      for (const token of words[measure][direction] || []) line.appendChild(el("span", {}, token));
      box.appendChild(line);
    }
  }
  return box;
}

function drivingTexts(row, data) {
  // The test texts with the highest and the lowest activation of the neuron at its best
  // prompt token, each with its label and activation (data.texts: [text, label] by
  // position; row.texts: [position, activation] lists).
  const box = el("div", { class: "texts", id: "driving-texts" });
  if (!row.texts || !data.texts) {
    box.textContent = "The test split's texts were not read for this task.";
    return box;
  }
  for (const [end, title] of [["high", "Highest activation"], ["low", "Lowest activation"]]) {
    box.appendChild(el("h4", {}, title));
    const list = el("ol", { class: `texts-${end}` });
    for (const [position, activation] of row.texts[end]) {
      const [text, label] = data.texts[position];
      const item = el("li");
      item.appendChild(el("span", { class: "activation" }, fmt(activation)));
      item.appendChild(el("span", { class: `label label-${label}` }, data.label_names[label]));
      item.appendChild(el("span", { class: "text" }, text));
      list.appendChild(item);
    }
    box.appendChild(list);
  }
  box.appendChild(
    el("p", { class: "note" }, `Baseline a_bsl ${fmt(row.baseline)}: above it the neuron predicts the positive side (Eq. 4). Input tokens are not shaded: the dumps hold the prompt tokens' activations only.`)
  );
  return box;
}

function drawPanel(row) {
  const data = window.EXPLORER.tasks[state.task];
  const panel = document.getElementById("panel");
  panel.textContent = "";
  panel.appendChild(el("h2", { id: "panel-title" }, `${state.task}: layer ${row.layer}, neuron ${row.neuron}`));
  panel.appendChild(el("h3", {}, "Test texts that drive it"));
  panel.appendChild(drivingTexts(row, data));
  panel.appendChild(el("h3", {}, "Activations by label"));
  for (const node of histogram(row, data.label_names)) panel.appendChild(node);
  panel.appendChild(el("h3", {}, "Place in the network"));
  panel.appendChild(layerStrip(row, data.layers));
  panel.appendChild(el("h3", {}, "Ranks on the other tasks"));
  panel.appendChild(otherRanks(row));
  panel.appendChild(el("h3", {}, "Top words (A-T2, A-T6)"));
  panel.appendChild(topWords(row, data));
}

// ------------------------------------------------------------------ start

function start() {
  const overview = window.EXPLORER.overview;
  document.getElementById("model").textContent = overview.model;
  drawOverview();
  const select = document.getElementById("task");
  for (const task of overview.tasks) select.appendChild(el("option", { value: task }, task));
  select.addEventListener("change", () => selectTask(select.value));
  document.getElementById("filter").addEventListener("input", drawTable);
  document.getElementById("top-filter").addEventListener("change", drawTable);
  // #task=NAME&click=I opens a task and clicks its I-th row (links and the browser test).
  const wanted = new URLSearchParams(location.hash.slice(1));
  const task = overview.tasks.includes(wanted.get("task")) ? wanted.get("task") : overview.tasks[0];
  select.value = task;
  selectTask(task);
  if (wanted.has("click")) {
    const rows = document.querySelectorAll("#neuron-table tbody tr");
    const index = Number(wanted.get("click"));
    if (rows[index]) rows[index].click();
  }
}

start();
