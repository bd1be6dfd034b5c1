// Tributary's web console: a login (SCRAM-SHA-256 in the page, scram.js) when roles have
// passwords, a SQL editor over POST /api/sql, a live mode over the SSE endpoint /api/subscribe,
// a catalog of tributary_internal.objects with each object's columns, definition, size,
// frontiers and dataflow graph, and plots of lag and of tributary_internal.server_metrics.
// Everything shown is the answer to a query psql could run.
import { h, render } from 'preact';
import { useState, useEffect, useRef } from 'preact/hooks';
import htm from 'htm';
import { login } from './scram.js';
import './console.css';

const html = htm.bind(h);

// The server said this browser must log in (again): the console shows its login form.
const LOGIN_NEEDED = 'tributary-login-needed';

async function post(path, body) {
  const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (response.status === 401 && answer.error?.sqlstate === '28000') window.dispatchEvent(new Event(LOGIN_NEEDED));
  return answer;
}

const runSql = (sql) => post('api/sql', { sql });

// An id from the server, checked to be a number before it goes into a query's text.
const idOf = (object) => {
  const id = Number(object.id);
  if (!Number.isSafeInteger(id)) throw new Error(`not an object id: ${object.id}`);
  return id;
}

// A query as a SUBSCRIBE: one already is kept as it is.
function asSubscribe(sql) {
  const text = sql.trim().replace(/;\s*$/, '');
  return /^subscribe\b/i.test(text) ? text : `SUBSCRIBE (${text})`;
}

function Table({ columns, rows, classes, className }) {
  return html`<table class=${className || ''}>
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
  return html`<div class="results">
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
  return html`<div class="live">
    <div class="status">live: ${state.batches} batches, ${state.rows.size} distinct rows</div>
    ${state.error ? html`<${ErrorBox} error=${state.error} sql=${asSubscribe(sql)} />` : null}
    <${Table} columns=${state.columns} rows=${shown} classes=${classes} />
  </div>`;
}

// How long the lag plot looks back, and how often the objects are read.
const PLOT_MILLIS = 5 * 60 * 1000;
const REFRESH_MILLIS = 3000;
const PLOT_COLORS = ['#1d4e5f', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#2980b9', '#7f8c8d'];

// Series over the last minutes on a linear scale from 0 to the largest value in the window:
// `series` maps a name to its [time, value] points; a line needs two of them.
function Plot({ name, title, series }) {
  const width = 300;
  const height = 100;
  const names = Object.keys(series).filter((n) => series[n].length >= 2);
  if (names.length === 0) return html`<div class="plotbox"><h4>${title}</h4><div class="status">waiting for a second sample…</div></div>`;
  const now = Math.max(...names.map((n) => series[n][series[n].length - 1][0]));
  // the window grows to PLOT_MILLIS as samples come, so the first minutes use the whole width
  const from = Math.max(now - PLOT_MILLIS, Math.min(...names.map((n) => series[n][0][0])));
  const max = Math.max(1e-9, ...names.flatMap((n) => series[n].map(([, v]) => v)));
  const x = (at) => ((at - from) / Math.max(1, now - from)) * width;
  const y = (v) => height - (v / max) * (height - 2) - 1;
  return html`<div class="plotbox"><h4>${title} <span class="status">(max ${Number(max.toPrecision(3))})</span></h4>
    <svg width=${width} height=${height} class="plot" data-plot=${name}>
      ${names.map((n, i) => html`<polyline fill="none" stroke=${PLOT_COLORS[i % PLOT_COLORS.length]} stroke-width="1.5"
        points=${series[n].map(([at, v]) => `${x(at).toFixed(1)},${y(v).toFixed(1)}`).join(' ')} />`)}
    </svg>
    <div>${names.map((n, i) => html`<span class="legend" style=${`color:${PLOT_COLORS[i % PLOT_COLORS.length]}`}>■ ${n} </span>`)}</div>
  </div>`;
}

// Samples `sql` every REFRESH_MILLIS and keeps the answers of the last PLOT_MILLIS as
// { at, result }; the latest answer (or its error) is `latest`.
function useSampled(sql) {
  const [state, setState] = useState({ history: [], latest: null });
  useEffect(() => {
    let stopped = false;
    const refresh = async () => {
      let answer;
      try {
        answer = await runSql(sql);
      } catch (e) {
        answer = { error: { sqlstate: '08006', message: String(e) } };
      }
      if (stopped) return;
      const at = Date.now();
      setState((old) => ({
        latest: answer,
        history: answer.results ? old.history.filter((s) => s.at > at - PLOT_MILLIS).concat([{ at, result: answer.results[0] }]) : old.history,
      }));
    };
    refresh();
    const timer = setInterval(refresh, REFRESH_MILLIS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [sql]);
  return state;
}

// The server's counters (tributary_internal.server_metrics) as plots: rates between two samples
// for the cumulative counts, the percentiles and memory as they are.
function Metrics() {
  const { history, latest } = useSampled(`SELECT statements, commits, latency_p50_ms, latency_p99_ms, heap_used_bytes, arrangement_bytes
    FROM tributary_internal.server_metrics`);
  if (latest?.error) return html`<section class="metrics"><h3>Server</h3><${ErrorBox} error=${latest.error} sql="" /></section>`;
  const samples = history.filter((s) => s.result.rows.length > 0).map((s) => ({ at: s.at, v: s.result.rows[0].map(Number) }));
  const rate = (k) => samples.slice(1).map((s, i) => [s.at, Math.max(0, (s.v[k] - samples[i].v[k]) / ((s.at - samples[i].at) / 1000))]);
  const value = (k, scale) => samples.map((s) => [s.at, s.v[k] * scale]);
  const MB = 1 / (1024 * 1024);
  return html`<section class="metrics"><h3>Server (last 5 minutes)</h3>
    <${Plot} name="rates" title="per second" series=${{ 'commits/s': rate(1), 'statements/s': rate(0) }} />
    <${Plot} name="latency" title="statement latency since start, ms" series=${{ p50: value(2, 1), p99: value(3, 1) }} />
    <${Plot} name="memory" title="memory, MB" series=${{ 'heap used': value(4, MB), arrangements: value(5, MB) }} />
  </section>`;
}

// A dataflow's operators in layers by their longest path from a source, channels as lines,
// operators holding an arrangement filled (darker when another dataflow shares it).
function DataflowGraph({ object }) {
  const [graph, setGraph] = useState(null);
  useEffect(() => {
    const id = idOf(object);
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

// What psql's \d+ would say of an object: its columns (name, type, nullability), its definition
// (a view's query, an index's CREATE INDEX), what its dataflow holds, and its frontiers and lag.
function ObjectDetails({ object }) {
  const [answer, setAnswer] = useState(null);
  useEffect(() => {
    const id = idOf(object);
    const definition = { index: `pg_get_indexdef(${id})`, view: `pg_get_viewdef(${id}, true)`, 'materialized view': `pg_get_viewdef(${id}, true)` }[object.kind];
    const queries = [
      `SELECT a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type, CASE WHEN a.attnotnull THEN 'no' ELSE 'yes' END AS nullable
        FROM pg_attribute a WHERE a.attrelid = ${id} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
      `SELECT part, records, bytes FROM tributary_internal.arrangement_sizes WHERE object_id = ${id} ORDER BY part`,
    ];
    if (definition) queries.push(`SELECT ${definition} AS definition`);
    runSql(queries.join(';\n')).then(setAnswer);
  }, [object.id]);
  if (!answer) return html`<div class="details">loading ${object.name}…</div>`;
  if (answer.error) return html`<div class="details"><${ErrorBox} error=${answer.error} sql="" /></div>`;
  const [columns, sizes, definition] = answer.results;
  return html`<div class="details"><h3>${object.kind} ${object.name}</h3>
    <div class="frontiers">since ${object.since ?? '—'}, upper ${object.upper ?? '—'}, lag ${object.lag_ms ?? '—'} ms, hydrated ${object.hydrated ?? '—'}</div>
    ${definition ? html`<pre class="definition">${definition.rows[0][0]}</pre>` : null}
    <div class="side">
      <${Table} className="columns" columns=${columns.columns} rows=${columns.rows} />
      ${sizes.rows.length > 0 ? html`<${Table} className="sizes" columns=${sizes.columns} rows=${sizes.rows} />` : null}
    </div>
  </div>`;
}

const OBJECTS_SQL = 'SELECT id, schema, name, kind, since, upper, lag_ms, hydrated FROM tributary_internal.objects ORDER BY schema, name';

// tributary_internal.objects, refreshed, with a plot of each object's lag; a click picks one.
function Catalog({ onPick }) {
  const { history, latest } = useSampled(OBJECTS_SQL);
  if (!latest) return html`<section class="catalog"><h3>Objects</h3>loading…</section>`;
  if (latest.error) return html`<section class="catalog"><h3>Objects</h3><${ErrorBox} error=${latest.error} sql="" /></section>`;
  const result = latest.results[0];
  const lags = {};
  for (const { at, result: r } of history) {
    for (const row of r.rows) {
      // an upper still at the epoch means nothing is complete yet (a build under way): no lag to plot
      if (row[6] === null || row[3] === 'subscription' || row[5] === null || row[5].startsWith('1970-01-01')) continue;
      (lags[`${row[1]}.${row[2]}`] ||= []).push([at, Number(row[6])]);
    }
  }
  const shown = ['schema', 'name', 'kind', 'lag_ms', 'hydrated'];
  const at = shown.map((c) => result.columns.indexOf(c));
  return html`<section class="catalog"><h3>Objects</h3>
    <table>
      <thead><tr>${shown.map((c) => html`<th>${c}</th>`)}</tr></thead>
      <tbody>${result.rows.map((row) => html`<tr class="pick" title="show its details and dataflow" data-name=${`${row[1]}.${row[2]}`}
        onClick=${() => onPick(Object.fromEntries(result.columns.map((c, i) => [c, row[i]])))}>
        ${at.map((i) => (row[i] === null ? html`<td class="null">NULL</td>` : html`<td>${row[i]}</td>`))}</tr>`)}</tbody>
    </table>
    <${Plot} name="lag" title="lag, ms (objects with a complete time)" series=${lags} />
  </section>`;
}

// Name and password, proven to the server with SCRAM; the password itself is never sent.
function Login({ onLoggedIn }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const user = useRef(null);
  const password = useRef(null);
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(user.current.value, password.current.value, post);
      onLoggedIn();
    } catch (e) {
      setError(e.sqlstate ? e : { sqlstate: '08006', message: String(e) });
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="login" onSubmit=${submit}>
    <h3>Log in</h3>
    <p>Roles have passwords: log in as a role, as psql would (SCRAM-SHA-256).</p>
    <label>role <input id="login-user" ref=${user} autocomplete="username" /></label>
    <label>password <input id="login-password" ref=${password} type="password" autocomplete="current-password" /></label>
    <button id="login-submit" type="submit" disabled=${busy}>Log in</button>
    ${error ? html`<${ErrorBox} error=${error} sql="" />` : null}
  </form>`;
}

function Editor() {
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
  return html`<main>
      <section class="editor">
        <textarea id="sql" ref=${editor} value=${sql} onInput=${(e) => setSql(e.target.value)} onKeyDown=${onKey} spellcheck="false"></textarea>
        <div class="controls">
          <button id="run" onClick=${run}>Run (Ctrl-Enter)</button>
          <label><input id="live" type="checkbox" checked=${live} onChange=${(e) => { setLive(e.target.checked); setRan(null); }} /> live (SUBSCRIBE)</label>
        </div>
        ${ran?.live ? html`<${Live} key=${ran.key} sql=${ran.sql} />` : ran ? html`<${Results} answer=${ran.answer} sql=${ran.sql} />` : null}
        ${picked ? html`<${ObjectDetails} key=${picked.id} object=${picked} />` : null}
        ${picked && picked.kind !== 'subscription' ? html`<${DataflowGraph} key=${picked.id} object=${picked} />` : null}
      </section>
      <aside>
        <${Catalog} onPick=${setPicked} />
        <${Metrics} />
      </aside>
    </main>`;
}

// Whom the page runs as (GET api/session): the login form until a role has logged in when
// roles have passwords, else the editor as that role or, trusted, as the bootstrap role.
function Console() {
  const [session, setSession] = useState(null);
  const refresh = () => fetch('api/session').then((r) => r.json()).then(setSession, (e) => setSession({ error: { sqlstate: '08006', message: String(e) } }));
  useEffect(() => {
    refresh();
    window.addEventListener(LOGIN_NEEDED, refresh);
    return () => window.removeEventListener(LOGIN_NEEDED, refresh);
  }, []);
  const logout = async () => {
    await post('api/logout', {});
    refresh();
  };
  const mustLogIn = session && !session.error && session.login_required && !session.logged_in;
  return html`<div>
    <header>Tributary console
      ${session?.user ? html`<span class="who">as <span class="whoami">${session.user}</span></span>` : null}
      ${session?.logged_in ? html`<button id="logout" onClick=${logout}>Log out</button>` : null}
    </header>
    ${!session ? html`<main>loading…</main>` : session.error ? html`<main><${ErrorBox} error=${session.error} sql="" /></main>`
      : mustLogIn ? html`<main><${Login} onLoggedIn=${refresh} /></main>` : html`<${Editor} key=${session.user} />`}
  </div>`;
}

render(html`<${Console} />`, document.getElementById('app'));
