export { ApiError } from './errors.js';
export { type ApiOptions, buildApi, DEFAULT_RATE_LIMIT } from './server.js';
