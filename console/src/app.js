// Tributary's web console: a SQL editor over POST /api/sql, a live mode over the SSE endpoint
// /api/subscribe, and a catalog panel of tributary_internal.objects.
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

function Catalog() {
  const [objects, setObjects] = useState(null);
  useEffect(() => {
    let stopped = false;
    const refresh = async () => {
      try {
        const answer = await runSql('SELECT schema, name, kind, lag_ms, hydrated FROM tributary_internal.objects ORDER BY schema, name');
        if (!stopped) setObjects(answer.results ? answer.results[0] : { columns: ['error'], rows: [[answer.error.message]] });
      } catch (e) {
        if (!stopped) setObjects({ columns: ['error'], rows: [[String(e)]] });
      }
    };
    refresh();
    const timer = setInterval(refresh, 3000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  return html`<section class="catalog"><h3>Objects</h3>
    ${objects ? html`<${Table} columns=${objects.columns} rows=${objects.rows} />` : 'loading…'}</section>`;
}

function Console() {
  const [sql, setSql] = useState('SELECT 1;');
  const [live, setLive] = useState(false);
  const [ran, setRan] = useState(null);
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
      </section>
      <${Catalog} />
    </main>
  </div>`;
}

render(html`<${Console} />`, document.getElementById('app'));
