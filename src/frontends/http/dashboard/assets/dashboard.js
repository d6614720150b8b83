// The /dashboard page (docs/dashboard.md). Every second it reads
// /dashboard/data, which holds only cumulative counters and instantaneous
// gauges, and derives what it plots from the difference with the previous
// answer: request and error rates, latency quantiles (from the latency
// histograms' buckets, as Prometheus' histogram_quantile), cache hit rate.
// The server keeps nothing per viewer. Data enter the page through
// textContent only: a model's name or reason is never parsed as HTML.
"use strict";

const POLL_MS = 1000;
const WINDOW_POINTS = 120;  // two minutes of history per plot
const BATCH_WINDOW_POINTS = 60;  // the batch size distribution covers the last minute

const state = {
  previous: null,      // the last answer
  models: new Map(),   // "name/version" -> {panel, plots, history, rows}
  server: null,        // the server panel's plots and history
  updates: 0,
  busy: false,
};

// ---------------------------------------------------------------- helpers

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== "") node.textContent = text;
  return node;
}

function formatBytes(bytes) {
  if (bytes == null) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return value.toFixed(unit === 0 ? 0 : 1) + " " + units[unit];
}

function formatNumber(value, digits = 1) {
  return value == null || !isFinite(value) ? "–" : value.toFixed(digits);
}

// The q-quantile (seconds) of the observations between two cumulative
// snapshots of a histogram; null when nothing was observed between them.
function histogramQuantile(q, bounds, now, before) {
  if (!now || !before || now.length !== bounds.length + 1 || before.length !== now.length) {
    return null;
  }
  const counts = now.map((c, i) => c - before[i]);
  const total = counts[counts.length - 1];
  if (!(total > 0)) return null;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (counts[i] >= rank) {
      const lower = i === 0 ? 0 : bounds[i - 1];
      const below = i === 0 ? 0 : counts[i - 1];
      const inBucket = counts[i] - below;
      const share = inBucket > 0 ? (rank - below) / inBucket : 1;
      return lower + (bounds[i] - lower) * share;
    }
  }
  return bounds[bounds.length - 1];  // in the +Inf bucket: the largest finite bound
}

// A rate per second from two counter readings; null when the counter went
// backwards (the model was reloaded and its statistics restarted).
function rate(now, before, seconds) {
  if (before == null || now == null || seconds <= 0 || now < before) return null;
  return (now - before) / seconds;
}

// ---------------------------------------------------------------- plots

function plotWidth(container) {
  return Math.max(300, container.clientWidth || 420);
}

// From 0 to a little above the largest value; 0 to 1 while there is none.
function fromZero(u, min, max) {
  return [0, max > 0 ? max * 1.15 : 1];
}

const TIME_AXIS = {
  space: 70,
  incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300],
  values: (u, splits) => splits.map((t) => new Date(t * 1000).toLocaleTimeString()),
};

// A time series plot of `series` ([{label, stroke}]) in `container`.
function timePlot(container, title, yLabel, series) {
  const options = {
    title,
    width: plotWidth(container),
    height: 180,
    scales: {x: {time: true}, y: {range: fromZero}},
    axes: [TIME_AXIS, {label: yLabel, size: 60}],
    legend: {live: false},
    series: [{}].concat(series.map((s) => ({label: s.label, stroke: s.stroke, width: 1.5,
                                            spanGaps: false}))),
  };
  const data = [[]].concat(series.map(() => []));
  return {uplot: new uPlot(options, data, container), data, container};
}

// A bar chart: executions per batch size, one bar per size seen (x is the
// bar's index, labelled with its size).
function batchPlot(container) {
  const plot = {sizes: [1], data: [[0], [0]], container};
  const options = {
    title: "Batch size distribution (executions, last minute)",
    width: plotWidth(container),
    height: 180,
    scales: {x: {time: false, range: () => [-0.5, plot.sizes.length - 0.5]},
             y: {range: fromZero}},
    axes: [{label: "batch size", splits: () => plot.sizes.map((_, i) => i),
            values: (u, splits) => splits.map((i) => String(plot.sizes[i] ?? ""))},
           {label: "executions", size: 60}],
    legend: {show: false},
    series: [{},
             {label: "executions", stroke: "#3e63dd", fill: "rgba(62,99,221,0.35)",
              paths: uPlot.paths.bars({size: [0.6, 80]}), points: {show: false}}],
  };
  plot.uplot = new uPlot(options, plot.data, container);
  return plot;
}

function pushPoint(plot, time, values) {
  plot.data[0].push(time);
  values.forEach((value, i) => plot.data[i + 1].push(value));
  if (plot.data[0].length > WINDOW_POINTS) plot.data.forEach((column) => column.shift());
  plot.uplot.setData(plot.data);
  plot.container.dataset.points = String(plot.data[0].length);
}

function resizePlots() {
  const plots = [];
  if (state.server) plots.push(...state.server.plots);
  for (const model of state.models.values()) plots.push(...Object.values(model.plots));
  for (const plot of plots) plot.uplot.setSize({width: plotWidth(plot.container), height: 180});
}

// ---------------------------------------------------------------- server panel

function serverPanel() {
  if (state.server) return state.server;
  const cpu = timePlot(document.getElementById("plot-server-cpu"), "CPU", "%",
                       [{label: "process (% of one core)", stroke: "#3e63dd"},
                        {label: "machine (% of all cores)", stroke: "#9e9e9e"}]);
  const memory = timePlot(document.getElementById("plot-server-memory"), "Process memory",
                          "MiB", [{label: "resident (RSS)", stroke: "#3e63dd"}]);
  state.server = {cpu, memory, plots: [cpu, memory]};
  return state.server;
}

function updateServer(data, previous, seconds) {
  const panel = serverPanel();
  const process = data.process;
  const machine = data.machine;
  let processCpu = null;
  if (process && previous && previous.process) {
    processCpu = rate(process.cpu_seconds, previous.process.cpu_seconds, seconds);
  }
  const machineCpu = machine ? machine.cpu_utilization * 100 : null;
  document.getElementById("process-cpu").textContent =
      processCpu == null ? "–" : formatNumber(processCpu * 100) + " %";
  document.getElementById("process-memory").textContent =
      formatBytes(process ? process.resident_bytes : null);
  document.getElementById("machine-cpu").textContent =
      machineCpu == null ? "–" : formatNumber(machineCpu) + " %";
  document.getElementById("machine-memory").textContent = machine
      ? formatBytes(machine.memory_used_bytes) + " of " + formatBytes(machine.memory_total_bytes)
      : "–";
  const time = data.time_ms / 1000;
  pushPoint(panel.cpu, time, [processCpu == null ? null : processCpu * 100, machineCpu]);
  pushPoint(panel.memory, time, [process ? process.resident_bytes / 1048576 : null]);
}

// ---------------------------------------------------------------- model panels

function modelKey(model) {
  return model.name + "/" + model.version;
}

function createModelPanel(model) {
  const panel = element("section", {"class": "panel model-panel", "data-model": model.name,
                                    "data-version": model.version});
  const heading = element("h2", {}, model.name);
  heading.appendChild(element("span", {"class": "sub"}, "version " + model.version));
  panel.appendChild(heading);
  const grid = element("div", {"class": "plots"});
  const names = ["requests", "load", "latency", "batch", "cache"];
  const containers = {};
  for (const name of names) {
    containers[name] = element("div", {"class": "plot", "data-plot": name});
    grid.appendChild(containers[name]);
  }
  panel.appendChild(grid);
  document.getElementById("model-panels").appendChild(panel);
  const plots = {
    requests: timePlot(containers.requests, "Requests", "per second",
                       [{label: "success", stroke: "#13795b"},
                        {label: "errors", stroke: "#b42318"}]),
    load: timePlot(containers.load, "Queue depth and in flight", "requests",
                   [{label: "queue depth", stroke: "#b54708"},
                    {label: "in flight", stroke: "#3e63dd"}]),
    latency: timePlot(containers.latency, "Latency", "ms",
                      [{label: "queue p50", stroke: "#f79009"},
                       {label: "queue p99", stroke: "#b54708"},
                       {label: "compute p50", stroke: "#6e8df0"},
                       {label: "compute p99", stroke: "#1d3fb8"}]),
    batch: batchPlot(containers.batch),
    cache: timePlot(containers.cache, "Response cache hit rate", "%",
                    [{label: "hits", stroke: "#7a5af8"}]),
  };
  return {panel, plots, history: []};
}

function latencies(data, stats, before) {
  const bounds = data.latency_bounds_seconds;
  const ms = (seconds) => (seconds == null ? null : seconds * 1000);
  return [
    ms(histogramQuantile(0.5, bounds, stats.queue_buckets, before.queue_buckets)),
    ms(histogramQuantile(0.99, bounds, stats.queue_buckets, before.queue_buckets)),
    ms(histogramQuantile(0.5, bounds, stats.compute_buckets, before.compute_buckets)),
    ms(histogramQuantile(0.99, bounds, stats.compute_buckets, before.compute_buckets)),
  ];
}

// Executions per batch size between the oldest kept answer and this one.
function updateBatchPlot(entry, stats) {
  entry.history.push(stats.batch_executions);
  if (entry.history.length > BATCH_WINDOW_POINTS) entry.history.shift();
  const oldest = entry.history[0];
  const sizes = Object.keys(stats.batch_executions).map(Number).sort((a, b) => a - b);
  const counts = sizes.map((size) => stats.batch_executions[size] - (oldest[size] || 0));
  const plot = entry.plots.batch;
  plot.sizes = sizes.length ? sizes : [1];
  plot.data[0] = plot.sizes.map((_, i) => i);
  plot.data[1] = sizes.length ? counts.map((c) => Math.max(c, 0)) : [0];
  plot.uplot.setData(plot.data);
  plot.container.dataset.points = String(sizes.length);
  plot.container.dataset.executions = String(counts.reduce((a, b) => a + Math.max(b, 0), 0));
}

// Plots one model's new point; returns what its table row shows.
function updateModel(data, model, previousStats, seconds) {
  const key = modelKey(model);
  if (!state.models.has(key)) state.models.set(key, createModelPanel(model));
  const entry = state.models.get(key);
  const stats = model.stats;
  const time = data.time_ms / 1000;
  const before = previousStats && stats.success >= previousStats.success ? previousStats : null;
  const success = before ? rate(stats.success, before.success, seconds) : null;
  const errors = before ? rate(stats.failure, before.failure, seconds) : null;
  const lookups = before ? (stats.cache_hits + stats.cache_misses) -
                           (before.cache_hits + before.cache_misses) : 0;
  const hitRate = lookups > 0 ? 100 * (stats.cache_hits - before.cache_hits) / lookups : null;
  const latency = before ? latencies(data, stats, before) : [null, null, null, null];
  pushPoint(entry.plots.requests, time, [success, errors]);
  pushPoint(entry.plots.load, time, [stats.queue_depth, stats.in_flight]);
  pushPoint(entry.plots.latency, time, latency);
  pushPoint(entry.plots.cache, time, [hitRate]);
  updateBatchPlot(entry, stats);
  entry.plots.requests.container.dataset.rate = String(success == null ? 0 : success);
  return {rate: success, queue: stats.queue_depth, inFlight: stats.in_flight,
          queueP99: latency[1], computeP99: latency[3]};
}

// ---------------------------------------------------------------- model table

function actionButtons(data, model) {
  const cell = element("td", {"class": "actions"});
  if (!data.repository_api) return cell;
  const load = element("button", {"data-action": "load", "data-model": model.name},
                       model.state === "READY" ? "Reload" : "Load");
  load.addEventListener("click", () => repositoryAction(load, "load", model.name));
  cell.appendChild(load);
  if (model.state === "READY") {
    const unload = element("button", {"data-action": "unload", "data-model": model.name}, "Unload");
    unload.addEventListener("click", () => repositoryAction(unload, "unload", model.name));
    cell.appendChild(unload);
  }
  return cell;
}

function tableRow(data, model, shown) {
  const row = element("tr", {"data-model": model.name, "data-version": model.version,
                             "data-state": model.state});
  row.appendChild(element("td", {"class": "name"}, model.name));
  row.appendChild(element("td", {"class": "version"}, model.version));
  row.appendChild(element("td", {"class": "state state-" + model.state}, model.state));
  row.appendChild(element("td", {"class": "reason"}, model.reason));
  row.appendChild(element("td", {"class": "number rate"}, formatNumber(shown && shown.rate)));
  row.appendChild(element("td", {"class": "number"}, shown ? String(shown.queue) : "–"));
  row.appendChild(element("td", {"class": "number"}, shown ? String(shown.inFlight) : "–"));
  row.appendChild(element("td", {"class": "number p99"}, shown
      ? formatNumber(shown.queueP99, 2) + " / " + formatNumber(shown.computeP99, 2) : "–"));
  row.appendChild(actionButtons(data, model));
  return row;
}

// The table is rebuilt on each answer (a few rows), unless a button of it is
// busy: its answer will rebuild it.
function updateTable(data, shownByKey) {
  const body = document.querySelector("#models tbody");
  if (body.querySelector("button:disabled")) return;
  document.getElementById("actions-header").hidden = !data.repository_api;
  const rows = data.models.map((model) => tableRow(data, model, shownByKey.get(modelKey(model))));
  body.replaceChildren(...rows);
}

async function repositoryAction(button, action, name) {
  button.disabled = true;
  showMessage(action + " " + name + "…");
  try {
    const response = await fetch("/v2/repository/models/" + encodeURIComponent(name) + "/" + action,
                                 {method: "POST", headers: {"Content-Type": "application/json"},
                                  body: "{}"});
    if (response.ok) {
      showMessage(action + " " + name + ": done");
    } else {
      const body = await response.json().catch(() => ({}));
      showMessage(action + " " + name + " failed (" + response.status + "): " +
                  (body.error || response.statusText));
    }
  } catch (error) {
    showMessage(action + " " + name + " failed: " + error);
  }
  button.disabled = false;
  poll();
}

function showMessage(text) {
  document.getElementById("message").textContent = text;
}

// ---------------------------------------------------------------- polling

function update(data) {
  const previous = state.previous;
  const seconds = previous ? (data.time_ms - previous.time_ms) / 1000 : 0;
  const previousStats = new Map();
  if (previous) {
    for (const model of previous.models) {
      if (model.stats) previousStats.set(modelKey(model), model.stats);
    }
  }
  updateServer(data, previous, seconds);
  const shown = new Map();
  for (const model of data.models) {
    if (!model.stats) continue;
    const key = modelKey(model);
    shown.set(key, updateModel(data, model, previousStats.get(key), seconds));
  }
  for (const [key, entry] of state.models) {
    const stats = data.models.find((model) => modelKey(model) === key && model.stats);
    entry.panel.dataset.loaded = stats ? "true" : "false";
  }
  updateTable(data, shown);
  state.previous = data;
  state.updates += 1;
  document.body.dataset.updates = String(state.updates);
  const status = document.getElementById("status");
  status.textContent = "updated " + new Date(data.time_ms).toLocaleTimeString();
  status.classList.remove("stale");
}

async function poll() {
  if (state.busy) return;
  state.busy = true;
  try {
    const response = await fetch("/dashboard/data", {cache: "no-store"});
    if (!response.ok) throw new Error("/dashboard/data answered " + response.status);
    update(await response.json());
  } catch (error) {
    const status = document.getElementById("status");
    status.textContent = "no data: " + error.message;
    status.classList.add("stale");
  } finally {
    state.busy = false;
  }
}

window.addEventListener("resize", resizePlots);
poll();
setInterval(poll, POLL_MS);
