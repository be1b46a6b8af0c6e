export { type DashboardOptions, dashboard } from './plugin.js';
export {
  DEFAULT_SESSION_LIMITS,
  type Opened,
  type Session,
  type SessionLimits,
  type SessionStore,
  Sessions,
} from './sessions.js';
