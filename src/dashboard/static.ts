import { createHash } from 'node:crypto';

/** The dashboard's stylesheet: system fonts, no external resource. */
const STYLE = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6474; --line: #d9dee7; --bg: #f6f7f9; --accent: #2457c5;
  --critical: #7a1fa2; --high: #c62828; --medium: #ef6c00; --low: #f9a825; --info: #1e88e5; --unknown: #78909c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.5rem; background: #111827; color: #fff; }
header.top a { color: #e5e7eb; text-decoration: none; }
header.top a.brand { font-weight: 700; color: #fff; }
header.top nav { display: flex; gap: 1rem; flex: 1; }
header.top nav a[aria-current] { color: #fff; border-bottom: 2px solid #60a5fa; }
header.top form { margin: 0; }
header.top .team { color: #9ca3af; }
main { max-width: 1200px; margin: 0 auto; padding: 1.25rem 1.5rem 3rem; }
h1 { font-size: 1.4rem; margin: .2rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .6rem; }
a { color: var(--accent); }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; word-break: break-word; }
th { white-space: nowrap; }
th { background: #eef1f5; font-weight: 600; font-size: .85rem; color: var(--muted); }
form.filters { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; margin: 0 0 1rem; }
form.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); gap: .15rem; }
input, select, button { font: inherit; padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
button.quiet { background: transparent; color: #e5e7eb; border-color: #4b5563; }
form.triage, form.retest { display: inline-flex; gap: .4rem; align-items: center; margin-left: .8rem; }
form.upload { display: flex; flex-direction: column; gap: .5rem; max-width: 40rem; margin: 0 0 1.2rem; }
form.upload label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); gap: .15rem; }
form.upload textarea { font-family: var(--mono, monospace); }
form.upload button { align-self: start; }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
.muted { color: var(--muted); }
.badge { display: inline-block; white-space: nowrap; padding: 0 .45rem; border-radius: 999px; font-size: .8rem; font-weight: 600; color: #fff; background: var(--unknown); }
.sev-critical { background: var(--critical); } .sev-high { background: var(--high); } .sev-medium { background: var(--medium); }
.sev-low { background: var(--low); color: #1d2330; } .sev-info { background: var(--info); } .sev-unknown { background: var(--unknown); }
.status { white-space: nowrap; font-size: .8rem; padding: 0 .4rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
.host { white-space: nowrap; max-width: 16rem; overflow: hidden; text-overflow: ellipsis; }
svg.chart rect.critical { fill: var(--critical); } svg.chart rect.high { fill: var(--high); } svg.chart rect.medium { fill: var(--medium); }
svg.chart rect.low { fill: var(--low); } svg.chart rect.info { fill: var(--info); } svg.chart rect.unknown { fill: var(--unknown); }
svg.chart text { font-size: 12px; fill: var(--fg); }
svg.chart { max-width: 520px; width: 100%; background: #fff; border: 1px solid var(--line); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; background: #fff; border: 1px solid var(--line); padding: .8rem 1rem; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
pre { background: #0f172a; color: #e2e8f0; padding: .8rem 1rem; overflow: auto; max-height: 32rem; white-space: pre-wrap; overflow-wrap: anywhere; border-radius: 4px; }
.tabs { display: flex; gap: .5rem; margin: .5rem 0 1rem; }
.tabs a { padding: .3rem .7rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; text-decoration: none; }
.tabs a[aria-current] { background: var(--accent); color: #fff; border-color: var(--accent); }
.notice { background: #fff7e6; border: 1px solid #f5c26b; padding: .6rem .9rem; border-radius: 4px; }
.error { background: #fdecec; border: 1px solid #f19999; padding: .6rem .9rem; border-radius: 4px; }
.signin { max-width: 420px; margin: 4rem auto; background: #fff; border: 1px solid var(--line); padding: 1.5rem; border-radius: 6px; }
.signin form { display: flex; flex-direction: column; gap: .8rem; }
progress { width: 8rem; vertical-align: middle; }
section.authentication .auth-share { margin: 0 0 .6rem; }
ul.auth-problems { margin: 0 0 .8rem; padding-left: 1.4rem; }
table.auth th { white-space: normal; word-break: normal; overflow-wrap: normal; }
table.auth td { word-break: normal; overflow-wrap: break-word; }
table.auth td.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.auth-error td { background: #fdecec; } tr.auth-warning td { background: #fff7e6; }
tr.auth-error td:first-child { box-shadow: inset 4px 0 var(--high); } tr.auth-warning td:first-child { box-shadow: inset 4px 0 var(--medium); }
.auth-problem { display: block; font-size: .8rem; font-weight: 600; }
.marker { white-space: nowrap; font-size: .75rem; padding: 0 .35rem; border: 1px dashed var(--muted); border-radius: 4px; color: var(--muted); }
a.auth-mark { white-space: nowrap; font-size: .8rem; font-weight: 600; padding: 0 .4rem; border-radius: 4px; text-decoration: none; }
a.auth-mark.auth-error { background: #fdecec; border: 1px solid #f19999; color: #9b1c1c; }
a.auth-mark.auth-warning { background: #fff7e6; border: 1px solid #f5c26b; color: #7a4b00; }
`;

/**
 * The dashboard's only script: it refreshes the progress of live scans (elements carrying
 * `data-live-scan`) every few seconds, as text, until none is live.
 */
const SCRIPT = `'use strict';
(function () {
  var LIVE = ['queued', 'starting', 'running'];
  function live() { return Array.prototype.slice.call(document.querySelectorAll('[data-live-scan]')); }
  function poll() {
    var rows = live();
    if (rows.length === 0) return;
    var ids = rows.map(function (row) { return row.getAttribute('data-live-scan'); });
    fetch('/scans/progress.json?ids=' + encodeURIComponent(ids.join(',')), { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : { scans: [] }; })
      .then(function (body) {
        (body.scans || []).forEach(function (scan) {
          rows.filter(function (row) { return row.getAttribute('data-live-scan') === scan.id; }).forEach(function (row) {
            var bar = row.querySelector('progress');
            if (bar) bar.value = scan.progress;
            var status = row.querySelector('[data-status]');
            if (status) status.textContent = scan.status;
            var percent = row.querySelector('[data-percent]');
            if (percent) percent.textContent = scan.progress + '%';
            if (LIVE.indexOf(scan.status) < 0) row.removeAttribute('data-live-scan');
          });
        });
      })
      .catch(function () {})
      .then(function () { if (live().length > 0) setTimeout(poll, 3000); });
  }
  setTimeout(poll, 3000);
})();
`;

export interface StaticFile {
  readonly path: string;
  readonly type: string;
  readonly body: string;
  readonly etag: string;
}

function file(path: string, type: string, body: string): StaticFile {
  return {
    path,
    type,
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`,
  };
}

export const STATIC_FILES: readonly StaticFile[] = [
  file('/static/dashboard.css', 'text/css; charset=utf-8', STYLE),
  file('/static/dashboard.js', 'text/javascript; charset=utf-8', SCRIPT),
];
