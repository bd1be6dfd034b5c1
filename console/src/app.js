// Tributary's web console: a SQL editor over POST /api/sql, a live mode over the SSE endpoint
// /api/subscribe, a catalog panel of tributary_internal.objects with a plot of their lag, and
// the dataflow graph of the object picked there.
import { h, render } from 'preact';
import { useState, useEffect, useRef } from 'preact/hooks';
import htm from 'htm';
import './console.css';

const html = htm.bind(h);

async function runSql(sql) {
  const response = await fetch('api/sql', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sql }) });
  return response.json();
}

// A query as a SUBSCRIBE: one already is kept as it is.
function asSubscribe(sql) {
  const text = sql.trim().replace(/;\s*$/, '');
  return /^subscribe\b/i.test(text) ? text : `SUBSCRIBE (${text})`;
}

function Table({ columns, rows, classes }) {
  return html`<table>
    <thead><tr>${columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
    <tbody>${rows.map((row, i) => html`<tr class=${classes ? classes[i] : ''}>
      ${row.map((v) => (v === null ? html`<td class="null">NULL</td>` : html`<td>${v}</td>`))}</tr>`)}</tbody>
  </table>`;
}

// The error as psql shows it: the line of the statement with a caret under the position.
function ErrorBox({ error, sql }) {
  let marker = '';
  if (error.position) {
    const before = sql.slice(0, error.position - 1);
    const lineStart = before.lastIndexOf('\n') + 1;
    const lineEnd = sql.indexOf('\n', lineStart);
    const line = sql.slice(lineStart, lineEnd < 0 ? sql.length : lineEnd);
    marker = `\n${line}\n${' '.repeat(before.length - lineStart)}^`;
  }
  return html`<div class="error" data-sqlstate=${error.sqlstate}>ERROR:  ${error.message} (SQLSTATE ${error.sqlstate})${marker}${error.detail ? `\nDETAIL:  ${error.detail}` : ''}${error.hint ? `\nHINT:  ${error.hint}` : ''}</div>`;
}

function Results({ answer, sql }) {
  if (!answer) return null;
  return html`<div>
    ${(answer.results || []).map((r) => html`<div>
      ${r.columns.length > 0 ? html`<${Table} columns=${r.columns} rows=${r.rows} />` : null}
      <div class="tag">${r.tag}</div></div>`)}
    ${answer.error ? html`<${ErrorBox} error=${answer.error} sql=${sql} />` : null}
  </div>`;
}

// A SUBSCRIBE's current rows: each batch's diffs applied to a multiset, rows it added marked
// fresh and rows it removed shown struck through until the next batch.
function Live({ sql }) {
  const [state, setState] = useState({ columns: [], rows: new Map(), fresh: new Set(), gone: [], error: null, batches: 0 });
  useEffect(() => {
    const source = new EventSource('api/subscribe?sql=' + encodeURIComponent(asSubscribe(sql)));
    source.addEventListener('batch', (event) => {
      const batch = JSON.parse(event.data);
      setState((old) => {
        const rows = new Map(old.rows);
        const fresh = new Set();
        const gone = [];
        const diffAt = batch.columns.indexOf('change_diff');
        for (const row of batch.rows) {
          const values = row.slice(diffAt + 1);
          const key = JSON.stringify(values);
          const count = (rows.get(key)?.count || 0) + Number(row[diffAt]);
          if (count > 0) rows.set(key, { values, count });
          else rows.delete(key);
          if (Number(row[diffAt]) > 0) fresh.add(key);
          else if (count <= 0) gone.push(values);
        }
        return { columns: batch.columns.slice(diffAt + 1), rows, fresh, gone, error: null, batches: old.batches + 1 };
      });
    });
    source.addEventListener('error', (event) => {
      if (event.data) setState((old) => ({ ...old, error: JSON.parse(event.data).error }));
      source.close();
    });
    source.addEventListener('done', () => source.close());
    return () => source.close();
  }, [sql]);
  const shown = [];
  const classes = [];
  for (const [key, { values, count }] of state.rows) {
    for (let i = 0; i < count; i++) {
      shown.push(values);
      classes.push(state.fresh.has(key) ? 'fresh' : '');
    }
  }
  for (const values of state.gone) {
    shown.push(values);
    classes.push('gone');
  }
  return html`<div>
    <div class="status">live: ${state.batches} batches, ${state.rows.size} distinct rows</div>
    ${state.error ? html`<${ErrorBox} error=${state.error} sql=${asSubscribe(sql)} />` : null}
    <${Table} columns=${state.columns} rows=${shown} classes=${classes} />
  </div>`;
}

// How long the lag plot looks back, and how often the objects are read.
const PLOT_MILLIS = 5 * 60 * 1000;
const REFRESH_MILLIS = 3000;
const PLOT_COLORS = ['#1d4e5f', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#2980b9', '#7f8c8d'];

// Each object's lag over the last minutes, one line per object, on a linear scale from 0
// to the largest lag seen in the window.
function LagPlot({ history }) {
  const width = 300;
  const height = 120;
  if (history.length < 2) return null;
  const now = history[history.length - 1].at;
  const names = [...new Set(history.flatMap((h) => Object.keys(h.lags)))];
  const max = Math.max(1, ...history.flatMap((h) => Object.values(h.lags)));
  const x = (at) => width - ((now - at) / PLOT_MILLIS) * width;
  const y = (lag) => height - (lag / max) * height;
  return html`<div><h3>Lag (ms, last 5 minutes; max ${max})</h3>
    <svg width=${width} height=${height} class="plot">
      ${names.map((name, i) => html`<polyline fill="none" stroke=${PLOT_COLORS[i % PLOT_COLORS.length]} stroke-width="1.5"
        points=${history.filter((h) => name in h.lags).map((h) => `${x(h.at).toFixed(1)},${y(h.lags[name]).toFixed(1)}`).join(' ')} />`)}
    </svg>
    <div>${names.map((name, i) => html`<span class="legend" style=${`color:${PLOT_COLORS[i % PLOT_COLORS.length]}`}>■ ${name} </span>`)}</div>
  </div>`;
}

// A dataflow's operators in layers by their longest path from a source, channels as lines,
// operators holding an arrangement filled (darker when another dataflow shares it).
function DataflowGraph({ object }) {
  const [graph, setGraph] = useState(null);
  useEffect(() => {
    const id = Number(object.id);
    runSql(`SELECT dataflow_id, operator_id, name, records_out, elapsed_ns FROM tributary_internal.operators
        WHERE dataflow_id IN (SELECT dataflow_id FROM tributary_internal.dataflows WHERE object_id = ${id}) ORDER BY operator_id;
      SELECT from_operator, to_operator, exchange FROM tributary_internal.channels
        WHERE dataflow_id IN (SELECT dataflow_id FROM tributary_internal.dataflows WHERE object_id = ${id});
      SELECT operator_id, name, records, shared_by::text FROM tributary_internal.arrangements
        WHERE dataflow_id IN (SELECT dataflow_id FROM tributary_internal.dataflows WHERE object_id = ${id})`).then((answer) => setGraph(answer));
  }, [object.id]);
  if (!graph) return html`<div>loading the dataflow of ${object.name}…</div>`;
  if (graph.error) return html`<${ErrorBox} error=${graph.error} sql="" />`;
  const [operators, channels, arrangements] = graph.results.map((r) => r.rows);
  if (operators.length === 0) return html`<div>${object.name} has no dataflow of its own (tables and sources do not).</div>`;
  const depth = new Map(operators.map((o) => [o[1], 0]));
  // longest path by relaxation, bounded by the operator count so that a loop cannot run forever
  for (let round = 0; round < operators.length; round++) {
    let moved = false;
    for (const [from, to] of channels) {
      if (from !== to && depth.has(from) && depth.has(to) && depth.get(to) < depth.get(from) + 1) {
        depth.set(to, depth.get(from) + 1);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const arranged = new Map(arrangements.map((a) => [a[0], a]));
  const layers = new Map();
  const place = new Map();
  for (const o of operators) {
    const d = depth.get(o[1]);
    const column = layers.get(d) || 0;
    layers.set(d, column + 1);
    place.set(o[1], { x: 10 + column * 190, y: 10 + d * 70 });
  }
  const width = 20 + 190 * Math.max(...layers.values());
  const height = 20 + 70 * (Math.max(...depth.values()) + 1);
  return html`<div><h3>Dataflow of ${object.name}</h3>
    <svg width=${width} height=${height} class="dataflow">
      ${channels.filter(([f, t]) => place.has(f) && place.has(t)).map(([f, t, exchange]) => html`<line
        x1=${place.get(f).x + 85} y1=${place.get(f).y + 40} x2=${place.get(t).x + 85} y2=${place.get(t).y}
        stroke=${exchange === 't' ? '#c0392b' : '#555'} />`)}
      ${operators.map((o) => {
        const p = place.get(o[1]);
        const a = arranged.get(o[1]);
        const shared = a && a[3] !== '{}' && a[3] !== null;
        return html`<g class=${a ? (shared ? 'op arranged shared' : 'op arranged') : 'op'}>
          <rect x=${p.x} y=${p.y} width="170" height="40" rx="4" />
          <text x=${p.x + 6} y=${p.y + 16}>${o[2].slice(0, 26)}</text>
          <text x=${p.x + 6} y=${p.y + 32} class="small">${o[3]} out, ${(Number(o[4]) / 1e6).toFixed(1)} ms${a ? `, ${a[2]} arranged${shared ? ' (shared)' : ''}` : ''}</text>
        </g>`;
      })}
    </svg></div>`;
}

function Catalog({ onPick }) {
  const [objects, setObjects] = useState(null);
  const [history, setHistory] = useState([]);
  useEffect(() => {
    let stopped = false;
    const refresh = async () => {
      try {
        const answer = await runSql('SELECT id, schema, name, kind, lag_ms, hydrated FROM tributary_internal.objects ORDER BY schema, name');
        if (stopped) return;
        if (!answer.results) {
          setObjects({ columns: ['error'], rows: [[answer.error.message]] });
          return;
        }
        const result = answer.results[0];
        setObjects(result);
        const at = Date.now();
        const lags = {};
        for (const row of result.rows) if (row[4] !== null && row[3] !== 'subscription') lags[row[2]] = Number(row[4]);
        setHistory((old) => old.filter((h) => h.at > at - PLOT_MILLIS).concat([{ at, lags }]));
      } catch (e) {
        if (!stopped) setObjects({ columns: ['error'], rows: [[String(e)]] });
      }
    };
    refresh();
    const timer = setInterval(refresh, REFRESH_MILLIS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  if (!objects) return html`<section class="catalog"><h3>Objects</h3>loading…</section>`;
  const byName = objects.columns[0] === 'id';
  return html`<section class="catalog"><h3>Objects</h3>
    <table>
      <thead><tr>${objects.columns.slice(byName ? 1 : 0).map((c) => html`<th>${c}</th>`)}</tr></thead>
      <tbody>${objects.rows.map((row) => html`<tr class="pick" title="show its dataflow"
        onClick=${() => byName && onPick({ id: row[0], name: `${row[1]}.${row[2]}` })}>
        ${row.slice(byName ? 1 : 0).map((v) => (v === null ? html`<td class="null">NULL</td>` : html`<td>${v}</td>`))}</tr>`)}</tbody>
    </table>
    <${LagPlot} history=${history} />
  </section>`;
}

function Console() {
  const [sql, setSql] = useState('SELECT 1;');
  const [live, setLive] = useState(false);
  const [ran, setRan] = useState(null);
  const [picked, setPicked] = useState(null);
  const editor = useRef(null);
  const run = async () => {
    const text = editor.current.value;
    if (live) {
      setRan({ live: true, sql: text, key: Date.now() });
      return;
    }
    setRan({ live: false, sql: text, answer: { results: [] }, running: true });
    let answer;
    try {
      answer = await runSql(text);
    } catch (e) {
      answer = { error: { sqlstate: '08006', message: String(e) } };
    }
    setRan({ live: false, sql: text, answer });
    if (answer.error?.position) editor.current.setSelectionRange(answer.error.position - 1, answer.error.position);
  };
  const onKey = (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  };
  return html`<div>
    <header>Tributary console</header>
    <main>
      <section class="editor">
        <textarea ref=${editor} value=${sql} onInput=${(e) => setSql(e.target.value)} onKeyDown=${onKey} spellcheck="false"></textarea>
        <div class="controls">
          <button onClick=${run}>Run (Ctrl-Enter)</button>
          <label><input type="checkbox" checked=${live} onChange=${(e) => { setLive(e.target.checked); setRan(null); }} /> live (SUBSCRIBE)</label>
        </div>
        ${ran?.live ? html`<${Live} key=${ran.key} sql=${ran.sql} />` : ran ? html`<${Results} answer=${ran.answer} sql=${ran.sql} />` : null}
        ${picked ? html`<${DataflowGraph} key=${picked.id} object=${picked} />` : null}
      </section>
      <${Catalog} onPick=${setPicked} />
    </main>
  </div>`;
}

render(html`<${Console} />`, document.getElementById('app'));
