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

test('--variant runs a configuration with changed settings right after it, in every repetition', () => {
  const { profile } = options(['--quick', '--configs', 'batched,traced',
    '--variant', 'share1=batched:DB_SHARED_LINGER_MS=30,DB_SHARED_LINGER_SHARE=1',
    '--variant', 'share1-traced=traced:DB_SHARED_LINGER_MS=30,DB_SHARED_LINGER_SHARE=1'])
  expect(profile.configs).toEqual(['batched', 'share1', 'traced', 'share1-traced'])
  expect(profile.variants.share1).toEqual({
    description: 'batched with DB_SHARED_LINGER_MS=30, DB_SHARED_LINGER_SHARE=1',
    base: 'batched',
    env: { DB_SHARED_LINGER_MS: '30', DB_SHARED_LINGER_SHARE: '1' },
    changes: { DB_SHARED_LINGER_MS: '30', DB_SHARED_LINGER_SHARE: '1' }
  })
  // The variant keeps its base's settings (tracing to files) and adds its own.
  expect(profile.variants['share1-traced'].env).toMatchObject({ TRACING_EXPORTERS: 'file', TRACING_SAMPLE_RATIO: '1', DB_SHARED_LINGER_SHARE: '1' })
  expect(PROFILES.quick.configs).toEqual(['batched', 'naive', 'traced'])
})

test('a --variant may split the handlers over processes, alone or with settings', () => {
  const { profile } = options(['--quick', '--configs', 'batched,traced',
    '--variant', 'split=batched:processes=prepare+position+fulfil+timeout|notification',
    '--variant', 'split-traced=traced:DB_SHARED_LINGER_MS=30,processes=prepare+position+fulfil+timeout|notification'])
  expect(profile.configs).toEqual(['batched', 'split', 'traced', 'split-traced'])
  expect(profile.variants.split).toEqual({
    description: 'batched with the handlers in 2 processes (prepare + position + fulfil + timeout | notification)',
    base: 'batched',
    env: {},
    changes: {},
    handlerProcesses: ['prepare,position,fulfil,timeout', 'notification']
  })
  expect(profile.variants['split-traced'].env).toMatchObject({ TRACING_SAMPLE_RATIO: '1', DB_SHARED_LINGER_MS: '30' })
  expect(profile.variants['split-traced'].handlerProcesses).toEqual(['prepare,position,fulfil,timeout', 'notification'])
  // The base keeps the campaign's one handler process.
  expect(profile.handlerProcesses).toBeUndefined()
})

test('a --variant may run another revision of the switch beside the campaign\'s, alone or with settings', () => {
  const { profile } = options(['--quick', '--configs', 'batched', '--code', 'head',
    '--variant', 'before=batched:code=e58dc5f',
    '--variant', 'before-nopace=batched:code=HEAD~2,KAFKA_LINGER_MS=0'])
  expect(profile.configs).toEqual(['batched', 'before', 'before-nopace'])
  expect(profile.variants.before).toEqual({ description: 'batched with the code of e58dc5f', base: 'batched', env: {}, changes: {}, code: 'e58dc5f' })
  expect(profile.variants['before-nopace']).toMatchObject({ code: 'HEAD~2', changes: { KAFKA_LINGER_MS: '0' }, description: 'batched with the code of HEAD~2, KAFKA_LINGER_MS=0' })
  expect(() => options(['--quick', '--variant', 'x=batched:code=a;rm -rf'])).toThrow('code=a;rm -rf is not a revision')
  expect(() => options(['--quick', '--variant', 'x=batched:code=a,code=b'])).toThrow('code= given twice')
  // Each run starts on a scratch ledger its own code migrated: never on a kept one.
  expect(() => options(['--quick', '--keep-ledger', '--variant', 'x=batched:code=e58dc5f'])).toThrow('cannot run on a kept ledger (--keep-ledger)')
  expect(() => options(['--profile', 'seeded', '--variant', 'x=batched:code=e58dc5f'])).toThrow('cannot run on switchyard_bench_seeded')
})

test('a --variant split leaves out no handler and names none twice', () => {
  expect(() => options(['--quick', '--variant', 'x=batched:processes=prepare+position+fulfil|notification'])).toThrow('missing: timeout')
  expect(() => options(['--quick', '--variant', 'x=batched:processes=prepare|prepare+position+fulfil+timeout+notification'])).toThrow('twice: prepare')
  expect(() => options(['--quick', '--variant', 'x=batched:processes=prepare+position+fulfil+timeout+notification,processes=notification|prepare+position+fulfil+timeout'])).toThrow('processes= given twice')
})

test('a --variant that cannot be compared or names an unknown setting is refused', () => {
  expect(() => options(['--quick', '--variant', 'x=batched'])).toThrow('is not NAME=BASE:K=V,K=V')
  expect(() => options(['--quick', '--variant', 'x=fast:DB_SHARED_LINGER_MS=30'])).toThrow('unknown configuration fast')
  expect(() => options(['--quick', '--variant', 'traced=batched:DB_SHARED_LINGER_MS=30'])).toThrow('traced is already a configuration')
  expect(() => options(['--quick', '--variant', 'x=batched:NO_SUCH_SETTING=1'])).toThrow('--variant x: NO_SUCH_SETTING=1 is not NAME=value with a known configuration name')
  expect(() => options(['--quick', '--configs', 'batched', '--variant', 'x=traced:DB_SHARED_LINGER_MS=30'])).toThrow('compared with traced, which the campaign does not run')
  expect(() => options(['--quick', '--variant', 'x=batched:DB_SHARED_LINGER_MS=30', '--variant', 'x=naive:DB_SHARED_LINGER_MS=30'])).toThrow('--variant x is given twice')
})

test('mistakes on the command line are usage errors that say what the option takes; --help asks for the usage', () => {
  const { UsageError } = require('../../src/cli-args')
  const mistakes = {
    '--rates=100,abc': '--rates is a list of transfers per second such as 100,200,400, not "abc"',
    '--rates=,': '--rates is a list of transfers per second',
    '--reps=0': '--reps is a whole number of at least 1, not "0"',
    '--step-ms=2.5': '--step-ms is a whole number of at least 1000, not "2.5"',
    '--single=-1': '--single is a whole number of at least 0, not "-1"',
    '--configs=batched,fast': 'unknown config fast; known: batched, naive, traced',
    '--variant=nope': '--variant: nope is not NAME=BASE:K=V,K=V',
    '--handler-processes=prepare': 'in exactly one process, processes separated by |; missing: position',
    '--rate=100': "Unknown option '--rate'"
  }
  for (const [arg, message] of Object.entries(mistakes)) {
    let thrown
    try { options(['--quick', arg]) } catch (err) { thrown = err }
    expect({ arg, type: thrown instanceof UsageError, message: thrown && thrown.message }).toEqual({ arg, type: true, message: expect.stringContaining(message) })
  }
  expect(options(['--quick', '--single', '0']).profile.single).toBe(0)
  expect(options(['--help'])).toBeNull()
  expect(options(['-h'])).toBeNull()
})

test('--priority sets the CPU priority of every run; without it, the default where the bench may set it', () => {
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  const plain = options(['--quick']).profile
  expect(plain.priority).toEqual(root ? { handlers: -20, db: -20 } : {})
  expect(plain.priorityFrom).toBe(root ? 'default' : 'not root')
  expect(options(['--quick', '--priority', 'none']).profile).toMatchObject({ priority: {}, priorityFrom: 'option' })
  expect(options(['--quick', '--priority', 'handlers:-5,kafka:2']).profile).toMatchObject({ priority: { handlers: -5, kafka: 2 }, priorityFrom: 'option' })
  expect(() => options(['--quick', '--priority', 'handlers:-30'])).toThrow(/--priority: handlers:-30 is not PART:NICE/)
  expect(PROFILES.quick.priority).toBeUndefined()
})
