/**
 * Area 4, "Acme Billing": a service API that wants an `X-API-Key` header.
 *
 * Planted weakness: its build-information endpoint, GET /actuator/info, discloses the versions of
 * the libraries it runs, among them log4j-core 2.14.1, which is vulnerable to Log4Shell
 * (CVE-2021-44228). The service only claims these versions; nothing here runs Java.
 */
import { methodNotAllowed, notFound, sameSecret, sendJson } from '../http.js';

export const BILLING_API_KEY = 'demo-billing-key-2b8e41';

const INVOICES = [
  { id: 'INV-2024-0311', customer: 'Mad Hatter Tea Co.', total: '412.50', currency: 'EUR', paid: true },
  { id: 'INV-2024-0312', customer: 'White Rabbit Clocks', total: '89.00', currency: 'EUR', paid: false },
];

const BUILD_INFO = {
  app: { name: 'billing-service', version: '3.8.2', description: 'Invoicing and payments' },
  build: { time: '2021-11-02T14:03:11Z', java: { version: '11.0.12' } },
  libraries: {
    'spring-boot': '2.5.6',
    'log4j-core': '2.14.1',
    'jackson-databind': '2.12.5',
    'postgresql-jdbc': '42.2.24',
  },
};

export function createBillingArea() {
  return (request, response, { path }) => {
    if (!sameSecret(request.headers['x-api-key'], BILLING_API_KEY)) {
      return sendJson(response, 401, { error: 'a valid X-API-Key header is required' });
    }
    if (request.method !== 'GET') return methodNotAllowed(response, 'GET');
    if (path === '/api/invoices') return sendJson(response, 200, { invoices: INVOICES });
    if (path === '/actuator/info') {
      // The weakness: build details meant for operators, served to every API client.
      return sendJson(response, 200, BUILD_INFO, { 'X-Application-Context': 'billing-service:production' });
    }
    return notFound(response);
  };
}
