export {
  type ScanRequestBody,
  ScanRequestError,
  type ScanStarter,
} from './routes/scan-requests.js';
export { buildApi, DEFAULT_RATE_LIMIT } from './server.js';
