/**
 * Which simulator profile the perp and `/v0` tests run on: `fast` (default) or `realistic`
 * (TEST_VENUE_PROFILE=realistic: the venue's weight limit, latency, read lag, page caps; see
 * sim/venue/README.md). On `fast` the simulator counts no weight, so the nodes get a budget that
 * never binds; on `realistic` they get the production default, as a deployment would.
 */
export const TEST_VENUE_PROFILE: 'fast' | 'realistic' = process.env.TEST_VENUE_PROFILE === 'realistic' ? 'realistic' : 'fast';

export const TEST_VENUE_WEIGHT_PER_MIN = TEST_VENUE_PROFILE === 'realistic' ? 900 : 1_000_000;
