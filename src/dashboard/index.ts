export { type DashboardOptions, dashboard } from './plugin.js';
export { DEFAULT_SESSION_LIMITS, type SessionLimits, Sessions } from './sessions.js';
