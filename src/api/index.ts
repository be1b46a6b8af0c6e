export { buildApi, DEFAULT_RATE_LIMIT } from './server.js';
