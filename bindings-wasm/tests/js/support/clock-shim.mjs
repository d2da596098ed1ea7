// TEST-ONLY stand-in for js/clock.js's PageClock (contract: nowMs, coarseMs, coarseLagMs,
// waitOrRetry): a clock the test sets by hand. `fake.now` is the time every reading returns;
// `fake.coarseLag` what coarseLagMs() says (coarse readings are `fake.coarse ?? fake.now`);
// waitOrRetry(untilMs) moves `fake.now` to untilMs and answers true when the wait is at most
// MAX_SPIN_MS, as the page clock's spin does, and false (Retry) otherwise. Every call is logged
// in `fake.log`.
export const MAX_SPIN_MS = 10

export const fake = { now: 0, coarse: null, coarseLag: 0, log: [], stuck: false }

/** Sets the clock to `now` with nothing else pending: no coarse reading, no log, not stuck. */
export function resetFake(now, coarseLag = 0) {
  Object.assign(fake, { now, coarse: null, coarseLag, log: [], stuck: false })
}

export class PageClock {
  nowMs() {
    fake.log.push(['now', fake.now])
    return fake.now
  }

  coarseMs() {
    const t = fake.coarse ?? fake.now
    fake.log.push(['coarse', t])
    return t
  }

  coarseLagMs() {
    return fake.coarseLag
  }

  waitOrRetry(untilMs) {
    fake.log.push(['wait', untilMs])
    if (typeof untilMs !== 'number') throw new TypeError('waitOrRetry takes a number')
    if (untilMs - fake.now > MAX_SPIN_MS) return false
    // `stuck`: a clock that never gets there (the generator must give up after its max waits).
    if (!fake.stuck) fake.now = Math.max(fake.now, untilMs)
    return true
  }
}
