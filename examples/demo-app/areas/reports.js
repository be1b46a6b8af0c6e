/**
 * Area 5, "Acme Reports": a reporting service that takes its access token in the query string
 * (`?token=…`), as some legacy services and export links do.
 *
 * Planted weakness: GET /reports/export with a format it does not know fails with a verbose error
 * that shows the exception's stack trace, and with it the server's file layout.
 */
import { methodNotAllowed, notFound, sameSecret, sendJson, sendText } from '../http.js';

export const REPORTS_TOKEN = 'demo-reports-token-5d21';

const REPORTS = [
  { id: 'sales-2024-q1', title: 'Sales, first quarter 2024', rows: 1240 },
  { id: 'churn-2024-q1', title: 'Churn, first quarter 2024', rows: 311 },
];

const EXPORTERS = {
  csv: (rows) => ['id,title,rows', ...rows.map((r) => `${r.id},"${r.title}",${r.rows}`)].join('\n'),
  json: (rows) => JSON.stringify(rows, null, 2),
};

function exporterFor(format) {
  const exporter = Object.hasOwn(EXPORTERS, format) ? EXPORTERS[format] : undefined;
  if (exporter === undefined) throw new RangeError(`unsupported export format: ${JSON.stringify(format)}`);
  return exporter;
}

function exportReports(format) {
  return exporterFor(format)(REPORTS);
}

export function createReportsArea() {
  return (request, response, { path, query }) => {
    if (!sameSecret(query.get('token'), REPORTS_TOKEN)) {
      return sendJson(response, 401, { error: 'a valid token query parameter is required' });
    }
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    if (path === '/reports') return sendJson(response, 200, { reports: REPORTS });
    if (path === '/reports/export') {
      const format = query.get('format') ?? 'csv';
      try {
        return sendText(response, 200, `${exportReports(format)}\n`);
      } catch (error) {
        // The weakness: the exception goes to the client as is, stack trace and all.
        return sendText(response, 500, `Internal Server Error\n\n${error.stack}\n`);
      }
    }
    return notFound(response);
  };
}
