export { startErasure, type ErasureRequest, type StartedErasure } from './start-erasure.js';
export { continueErasure, type ErasureDeps, type ErasureProgress } from './erasure-round.js';
