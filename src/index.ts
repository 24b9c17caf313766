/**
 * parley-kit public browser entry. Side-effect free: importing it defines no element and touches no global.
 */
export type * from './client/types.js';
