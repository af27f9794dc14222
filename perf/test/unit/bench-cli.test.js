'use strict'

// The bench's command line: what a campaign is asked to measure.

const { options } = require('../../src/bench/cli')
const { PROFILES } = require('../../src/bench/profiles')

test('a sustained step holds p99 ≤ 100 ms unless --p99-target says otherwise', () => {
  expect(options(['--quick']).profile.targets).toEqual({ p99TargetMs: 100, minSuccess: 0.9999 })
  const slower = options(['--quick', '--p99-target', '450', '--configs', 'batched,traced'])
  expect(slower.profile.targets).toEqual({ p99TargetMs: 450, minSuccess: 0.9999 })
  expect(slower.profile.configs).toEqual(['batched', 'traced'])
  // The profile itself is not changed for the next campaign.
  expect(PROFILES.quick.targets.p99TargetMs).toBe(100)
})

test('a --p99-target that is not a positive number of milliseconds is refused', () => {
  for (const bad of ['abc', '0', '-5']) expect(() => options([`--p99-target=${bad}`])).toThrow('--p99-target is a number of milliseconds')
})

test('--keep-traces keeps the traced runs\' span files in a directory of its own', () => {
  expect(options(['--quick']).profile.keepTracesDir).toBeNull()
  const kept = options(['--quick', '--keep-traces', 'some/traces'])
  expect(kept.profile.keepTracesDir).toBe(require('node:path').resolve('some/traces'))
  expect(PROFILES.quick.keepTracesDir).toBeNull()
})
