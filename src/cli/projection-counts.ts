/**
 * Counts by status of the three projections, as the replay summary and its
 * JSON output show them (computed in the core: the HTML report shows the same).
 */
export { countProjections, type ProjectionCounts } from '../core/projections/projection-counts.js';
