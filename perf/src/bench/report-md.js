'use strict'

// The markdown summary of a campaign: the headline per configuration, the
// comparisons, the generator's ceiling, every step of every run with its
// gates and its work per transfer, and the charts.

const { againstReference } = require('./speed-probe')
const { describeProcesses } = require('./profiles')
const { stalledMisses } = require('./disk-watch')
const { describePriority, DEFAULT_PRIORITY } = require('./priority')

/**
 * The CPU priority a campaign ran with, and where it came from (priority.js).
 * @param {Record<string, number>} priority @param {string} from 'default', 'option' or 'not root'
 */
function priorityPhrase (priority, from) {
  if (from === 'default') {
    return `CPU priority: ${describePriority(priority)}, the bench's default as root: the handler processes and MariaDB, ` +
      'whose round trips a shared transaction waits for, ahead of the API, Kafka and the generator (`--priority none` runs every process at nice 0; docs/benchmarks.md).'
  }
  if (from === 'not root') return `CPU priority: every process at nice 0; the bench's default, the handler processes and MariaDB at nice ${DEFAULT_PRIORITY.handlers}, needs root (docs/benchmarks.md).`
  return `CPU priority (\`--priority\`): ${describePriority(priority)}.`
}

/** @param {any} x median/min/max spread */
const f = (x) => (x ? (x.n > 1 ? `${x.median} (${x.min}–${x.max})` : `${x.median}`) : '–')
/** A spread of byte counts in KB (one decimal). @param {{ median: number, min: number, max: number, n: number } | null | undefined} x */
const kbSpread = (x) => (x ? { ...x, median: (x.median / 1000).toFixed(1), min: (x.min / 1000).toFixed(1), max: (x.max / 1000).toFixed(1) } : null)
/** @param {any} v */
const n = (v) => (v === null || v === undefined ? '–' : String(v))
/** Bytes as KB with one decimal, in a column headed KB. @param {number | null | undefined} v */
const kbNumber = (v) => (v === null || v === undefined ? '–' : (v / 1000).toFixed(1))
const COMPONENTS = ['api', 'handlers', 'kafka', 'mariadb', 'generator']
/** How a comparison's common rate was chosen (summary.js atCommonRate). @param {{ basis?: string }} a */
const onBasis = (a) => (a.basis === 'kept up' ? 'no rate was sustained by both; every run of both kept up with it' : 'both sustain it')

/** @param {any} code @param {any} git */
function codeUnderTest (code, git) {
  if (code && code.commit) return `commit \`${code.commit}\`${code.from === 'head' ? ' (the last commit)' : ` (\`--code ${code.from}\`; the harness at \`${n(git.commit)}\`)`}`
  if (code && code.from === 'head') return `the last commit, \`${n(git.commit)}\``
  return `the working tree at commit \`${n(git.commit)}\` with ${git.uncommittedFiles} uncommitted file(s)`
}

/**
 * A run's single-transfer line: its latency, the work per transfer and what the machine did meanwhile.
 * @param {any} run a result's runs[] entry with `single`
 */
function singleLine (run) {
  const sg = run.single
  return `Single transfer (${sg.count} sequential, ${sg.failed} failed${run.warmup ? `; after ${run.warmup.count} unmeasured warm-up transfers from ${run.warmup.concurrency} concurrent senders, ${Math.round(run.warmup.ms / 100) / 10} s` : ''}): p50 ${sg.latency.p50} ms, p90 ${sg.latency.p90}, p99 ${sg.latency.p99}, max ${sg.latency.max}; ` +
    `${sg.sql.statementsPerTransfer} SQL, ${sg.sql.commitsPerTransfer} commits, ${sg.sql.pageReadsPerTransfer} disk page reads, ${sg.sql.pagesCreatedPerTransfer} pages created and ${sg.sql.pagesWrittenPerTransfer ?? '–'} pages written per transfer; other processes used ${sg.cpu.otherProcessesPctCore}% of a core meanwhile;${sg.disk && sg.disk.count ? ` the disk stalled ${sg.disk.count} times (longest ${sg.disk.maxMs} ms);` : ''} gates ${sg.valid ? 'passed' : '**FAILED**'}.`
}

/**
 * How idle vCPUs wait, when the machine says (accounting.cpuIdle).
 * @param {{ driver: string | null, governor: string | null, haltPollUs: number | null } | undefined} idle
 */
function idleNote (idle) {
  if (!idle || !(idle.driver || idle.governor)) return ''
  let poll = ''
  if (idle.haltPollUs !== null) {
    poll = idle.haltPollUs > 0
      ? `, an idle vCPU polls for up to ${idle.haltPollUs} µs before it halts`
      : ', an idle vCPU halts at once (guest_halt_poll_ns=0): every hop to a process on a halted vCPU waits for the host to run it again'
  }
  return ` CPU idle: driver ${idle.driver || 'unknown'}, governor ${idle.governor || 'unknown'}${poll}.`
}

/**
 * One machine probe in a line, as the campaign prints it before each run and
 * the report heads that run's section; an earlier result's probe may lack
 * the work probe and the wake probe, and then says nothing of them.
 * @param {any} p a probe as campaign.js records it
 */
function probeSummary (p) {
  const wake = p.wakeUs ? `, process round trip p50 ${p.wakeUs.p50} µs${p.wakeUs.idle ? `, from idle ${p.wakeUs.idle.p50} µs` : ''}` : ''
  return `${p.workMs ? `work probe ${p.workMs} ms, ` : ''}speed probe ${p.speedMs} ms, all cores ${p.parallelMs} ms, fsync p50 ${p.fsyncMs.p50} / p99 ${p.fsyncMs.p99} ms${wake}`
}

/**
 * The machine's probes in the report: at the start, before each run and at
 * the end. The work probe weighs this machine against the README's (a bold
 * note when 20% or more off); the speed probe, kept for earlier results,
 * only tells drift within the campaign. Campaigns from before the work probe
 * have no note: their speed probe cannot say it.
 * @param {{ start: any, end?: any }} campaign the probes at the start and end
 * @param {any[]} before the probes before each run
 * @returns {string[]} paragraphs, each followed by an empty line
 */
function probeParagraphs ({ start, end }, before) {
  /** @type {string[]} */
  const L = []
  /** @param {any[]} probes @param {(p: any) => number} pick */
  const range = (probes, pick) => { const v = probes.map(pick); return Math.min(...v) === Math.max(...v) ? `${v[0]}` : `${Math.min(...v)}–${Math.max(...v)}` }
  const all = [start, ...before, end].filter(Boolean)
  /** @param {string} what @param {(p: any) => number} pick */
  const probeLine = (what, pick) => `${what}: ${pick(start)} at the start${before.length ? `, ${range(before, pick)} before the runs` : ''}${end ? `, ${pick(end)} at the end` : ''}.`
  if (all.every((p) => p.workMs)) {
    L.push(probeLine('Work probe (work shaped like the switch\'s own — JSON, small hashes, statement text — single-threaded, ms; lower is faster; a shared VM\'s speed drifts)', (p) => p.workMs), '')
    // The slowest probe of the campaign says how far off its figures may be.
    const { note } = againstReference(Math.max(...all.map((p) => p.workMs)))
    if (note) L.push(`**${note}**`, '')
  }
  L.push(probeLine('Speed probe (a tight integer loop and sha256, ms: drift within the campaign, and earlier results; it does not weigh one machine against another)', (p) => p.speedMs), '')
  L.push(`The same work on every core at once (slowest thread, ms): ${range(all, (p) => p.parallelMs)}; a 4 KB write made durable (fdatasync) in the local stack's directory: p50 ${range(all, (p) => p.fsyncMs.p50)} ms, p99 ${range(all, (p) => p.fsyncMs.p99)} ms${all.every((p) => p.wakeUs) ? `; a one-byte round trip to another process over loopback TCP (wake-probe.js): p50 ${range(all, (p) => p.wakeUs.p50)} µs${all.every((p) => p.wakeUs.idle) ? `, from idle (each ${all[0].wakeUs.idle.gapMs} ms after the last) ${range(all, (p) => p.wakeUs.idle.p50)} µs` : ''}` : ''} (at the start, before each run and at the end).`, '')
  return L
}

/** @param {any} result @param {Record<string, string>} svgFiles */
function renderMarkdown (result, svgFiles) {
  const L = []
  const m = result.machine
  const d = result.durable
  L.push(`# Switchyard benchmark — ${result.profile} profile, ${result.startedAt}`, '')
  L.push(`Command: \`${result.command}\` — took ${result.durationS} s.`, '')
  L.push(`Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Linux ${m.kernel}, Node ${m.node}; load average at start ${m.loadavg.join(' ')}. ` +
    `Code under test: ${codeUnderTest(result.code, m.git)}` +
    `${result.code ? ` (copied once for the whole campaign, digest ${result.code.digest})` : ''}.${idleNote(m.cpuIdle)}`, '')
  if (result.machineProbe) L.push(...probeParagraphs(result.machineProbe, result.runs.map((/** @type {any} */ r) => r.machineProbe).filter(Boolean)))
  const dw = result.diskWatch
  if (dw) {
    L.push(dw.failed
      ? `The disk watcher failed: ${dw.failed}.`
      : `Disk stalls (disk-watch.js: a 4 KB write and fdatasync every ${dw.intervalMs} ms beside the database's files, all campaign long): ` +
        `${dw.count ? `**${dw.count} fsync ${dw.count === 1 ? 'stall' : 'stalls'} ≥ ${dw.thresholdMs} ms in ${dw.seconds} s, the longest ${dw.maxMs} ms, ${dw.stalledMs} ms in all (${(dw.stalledShare * 100).toFixed(2)}% of the time)**. Every commit in such a moment waits as long; the steps' column *disk stalls* shows those within each` : `none ≥ ${dw.thresholdMs} ms in ${dw.seconds} s`}.`, '')
  }
  L.push(`Durable settings: MariaDB ${d.mariadbVersion} \`innodb_flush_log_at_trx_commit=${d.innodb_flush_log_at_trx_commit}\` (binlog ${d.log_bin ? 'on' : 'off'}${d.innodbBufferPoolMiB ? `, buffer pool ${d.innodbBufferPoolMiB} MiB` : ''}${d.innodbRedoLogMiB ? `, redo log ${d.innodbRedoLogMiB} MiB, io_capacity ${d.innodbIoCapacity}` : ''}); ` +
    `Kafka producer acks=${d.kafkaProducerAcks}; ${d.kafkaReplication}.${result.settings.dbOverSocket ? ' The switch reaches MariaDB over its Unix socket (DB_SOCKET), Kafka and HTTP over loopback TCP.' : ''} Everything — Kafka, MariaDB, the API, the handlers, the generator and the simulated participants — on this one machine.`, '')
  const bp = result.bufferPool
  const held = bp && (bp.warmed
    ? `read into it before the first run (${bp.seconds} s, ${bp.diskPageReads} pages from disk), as a switch that has been running holds them`
    : 'too large to hold, not read in: new transfers read their pages from disk')
  L.push(`Ledger at start: ${Object.entries(result.ledgerBefore || {}).map(([t, c]) => `${t} ≈ ${c} rows`).join(', ')}.` +
    (bp ? ` Indexes keyed by transfer id: ${bp.indexesMiB} MiB against a ${bp.bufferPoolMiB} MiB buffer pool; ${held}.` : ''), '')
  const bw = result.brokerWarmup
  if (bw && !bw.skipped) L.push(`Kafka had started ${bw.brokerAgeS} s before the first run: the default pipeline carried ${bw.durationMs / 1000} s at ${bw.rate}/s first, not measured (${bw.committed} of ${bw.sent} transfers committed), so that no configuration pays for the broker's warming up.`, '')
  const s = result.settings
  if (s.handlerProcesses) {
    L.push(`Processes of the switch: api-adapter | ${describeProcesses(s.handlerProcesses)} ` +
      `(${s.handlerProcesses.length > 1 ? 'the handler processes are counted together as "handlers" below; ' : ''}\`--handler-processes\`, docs/benchmarks.md).`, '')
  }
  const split = Object.entries(s.configs || {}).filter(([, c]) => c.handlerProcesses).map(([name]) => name)
  if (split.length) L.push(`${split.join(', ')} ${split.length > 1 ? 'run' : 'runs'} the handlers in processes of ${split.length > 1 ? 'their' : 'its'} own (\`--variant … processes=\`), counted together as "handlers" below.`, '')
  if (s.nodeFlags) L.push(`The switch's Node flags (\`--node-flags\`): ${s.nodeFlags.length ? s.nodeFlags.map((f) => `\`${f}\``).join(' ') : 'none'} — an experiment; the switch is deployed with others (docs/benchmarks.md).`, '')
  if (s.priorityFrom) L.push(priorityPhrase(s.priority || {}, s.priorityFrom), '')
  if (s.env && Object.keys(s.env).length) L.push(`Extra configuration for every run (\`--env\`): ${Object.entries(s.env).map(([k, v]) => `\`${k}=${v}\``).join(', ')}.`, '')
  L.push(`Target: p99 ≤ ${s.targets.p99TargetMs} ms, success ≥ ${s.targets.minSuccess * 100}%, no backlog growth. Steps of ${s.stepMs / 1000} s, steady-state window without the first max(1 s, 20%) and the last 10%; ` +
    `${s.payers} payers, ${s.payees} payees; ${s.reps} repetition(s) per configuration, interleaved.`, '')
  if (result.problems.length) L.push('**Problems (the steps concerned are INVALID):**', '', ...result.problems.map((/** @type {string} */ p) => `- ${p}`), '')

  L.push('## Summary', '', '| configuration | max sustainable rate (/s) | kept up with (/s) | single p50 (ms) | single p99 (ms) | SQL / transfer | SQL KB / transfer | commits / transfer | redo KB / transfer | Kafka msgs / transfer | Kafka requests / transfer | CPU ms / transfer | at rate (/s) |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const [label, c] of Object.entries(result.summary.byConfig)) {
    const a = /** @type {any} */ (c).atReferenceStep
    L.push(`| ${label} | ${f(c.maxSustainableRate)} | ${f(c.maxKeptUpRate)} | ${f(c.singleP50)} | ${f(c.singleP99)} | ${f(a.sqlPerTransfer)} | ${f(kbSpread(a.sqlBytesPerTransfer))} | ${f(a.commitsPerTransfer)} | ${f(kbSpread(a.redoBytesPerTransfer))} | ${f(a.kafkaPerTransfer)} | ${f(a.kafkaRequestsPerTransfer)} | ${f(a.cpuMsPerTransferTotal)} | ${f(a.offeredRate)} |`)
  }
  L.push('', '*Max sustainable*: highest step with p99 within target, success, no backlog growth and its gates passed, as had every step below it. *Kept up with*: highest step with success and no backlog growth whatever the latency (a lower bound when the ladder stopped first). ' +
    '*Single*: only measurements in which every transfer committed and the gates passed (a failed transfer has no latency to count, so a run with one is left out, and said so below). ' +
    'Work per transfer is read at each run\'s max sustainable step (its first step if none); it includes what the processes burn when idle (below). Medians, with min–max over repetitions.', '')
  for (const [label, c] of Object.entries(result.summary.byConfig)) {
    const left = /** @type {any} */ (c).singlesLeftOut
    if (left) L.push(`**${label}: ${left} single-transfer measurement(s) left out of the medians: a transfer failed or the gates did.**`, '')
  }
  L.push('CPU ms per transfer by component (same steps):', '', `| configuration | ${COMPONENTS.join(' | ')} |`, `| --- |${COMPONENTS.map(() => ' --- |').join('')}`)
  for (const [label, c] of Object.entries(result.summary.byConfig)) L.push(`| ${label} | ${COMPONENTS.map((k) => f(/** @type {any} */ (c).atReferenceStep.cpuMsPerTransfer[k])).join(' | ')} |`)
  L.push('', 'Idle, % of one core (no load, after warm-up):', '')
  for (const [label, c] of Object.entries(result.summary.byConfig)) L.push(`- ${label}: ${Object.entries(/** @type {any} */ (c).idlePctCore).map(([k, v]) => `${k} ${f(v)}`).join(', ')}`)
  L.push('')

  const cmp = result.summary.comparisons
  if (cmp.batchedVsNaive || cmp.tracingCost || cmp.variants) L.push('## Comparisons (same campaign, interleaved)', '')
  if (cmp.batchedVsNaive) {
    const c = cmp.batchedVsNaive
    L.push(`- **Batched vs one message per batch**: max sustainable rate ×${n(c.maxRate)}, rate kept up with ×${n(c.keptUpRate)}; the naive pipeline's single-transfer p50 is ×${n(c.singleP50)} and its SQL per transfer ×${n(c.sqlPerTransfer)} (each at its own max sustainable rate).` +
      (c.atCommonRate ? ` At ${c.atCommonRate.rate}/s (${onBasis(c.atCommonRate)}): p99 ${c.atCommonRate.a.p99} vs ${c.atCommonRate.b.p99} ms, CPU ${c.atCommonRate.a.cpuMsPerTransfer} vs ${c.atCommonRate.b.cpuMsPerTransfer} ms/transfer, SQL ${c.atCommonRate.a.sqlPerTransfer} vs ${c.atCommonRate.b.sqlPerTransfer} per transfer.` : ' No offered rate was sustained or kept up with by both.'))
  }
  if (cmp.tracingCost) {
    const c = cmp.tracingCost
    L.push(`- **Tracing at 100% (file exporter) vs off**: max sustainable rate ×${n(c.maxRate)}, single-transfer p50 ×${n(c.singleP50)}` +
      (c.atCommonRate ? `; at ${c.atCommonRate.rate}/s (${onBasis(c.atCommonRate)}): p50 ${c.atCommonRate.a.p50} → ${c.atCommonRate.b.p50} ms, p99 ${c.atCommonRate.a.p99} → ${c.atCommonRate.b.p99} ms, CPU ${c.atCommonRate.a.cpuMsPerTransfer} → ${c.atCommonRate.b.cpuMsPerTransfer} ms/transfer (×${n(c.cpuPerTransfer)}).` : '.'))
  }
  for (const [label, c] of Object.entries(cmp.variants || {})) {
    const a = /** @type {any} */ (c).atCommonRate
    // Results written before the byte counters have none to compare.
    const bytes = a && typeof a.a.sqlBytesPerTransfer === 'number'
      ? `SQL ${kbNumber(a.a.sqlBytesPerTransfer)} → ${kbNumber(a.b.sqlBytesPerTransfer)} KB (×${n(c.sqlBytesPerTransfer)}), redo ${kbNumber(a.a.redoBytesPerTransfer)} → ${kbNumber(a.b.redoBytesPerTransfer)} KB per transfer (×${n(c.redoBytesPerTransfer)}), `
      : ''
    L.push(`- **${label} vs ${c.base}** (\`--variant\`: ${s.configs[label] ? s.configs[label].description : label}): max sustainable rate ×${n(c.maxRate)}, rate kept up with ×${n(c.keptUpRate)}, single-transfer p50 ×${n(c.singleP50)}` +
      (a ? `; at ${a.rate}/s (${onBasis(a)}): p50 ${a.a.p50} → ${a.b.p50} ms, p99 ${a.a.p99} → ${a.b.p99} ms, commits ${a.a.commitsPerTransfer} → ${a.b.commitsPerTransfer} per transfer (×${n(c.commitsPerTransfer)}), ${bytes}CPU ${a.a.cpuMsPerTransfer} → ${a.b.cpuMsPerTransfer} ms/transfer (×${n(c.cpuPerTransfer)}).` : '; no offered rate was sustained or kept up with by both.'))
  }
  L.push('')

  if (result.nullSwitch) {
    const ns = result.nullSwitch
    L.push('## Generator ceiling (null switch)', '', `The same generator and simulators against \`null-switch.js\` (${ns.mode} mode: the same HTTP exchanges as a real transfer, no Kafka, no database). Ceiling (p99 ≤ ${ns.p99TargetMs} ms): **${ns.ceilingRate}/s**${ns.keptUpRate !== undefined ? `; kept up with ${ns.keptUpRate}/s, whatever the latency` : ''}.${ns.warmup ? ` First, ${ns.warmup.durationMs / 1000} s at ${ns.warmup.rate}/s, not measured.` : ''}`, '')
    L.push('| offered /s | achieved /s | p50 | p99 | max | send lag p99 | generator % core | null switch % core |', '| --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const st of ns.steps) {
      const p = st.cpu.processes
      L.push(`| ${st.offeredRate} | ${st.achievedRate} | ${n(st.latency.p50)} | ${n(st.latency.p99)} | ${n(st.latency.max)} | ${n(st.generator.sendLag.p99)} | ${n(p.generator && p.generator.pctCore)} | ${n(p.nullSwitch && p.nullSwitch.pctCore)} |`)
    }
    L.push('')
  }

  L.push('## Charts', '')
  for (const [name, file] of Object.entries(svgFiles)) L.push(`![${name}](${file})`, '')

  L.push('## Every run', '')
  for (const run of result.runs) {
    L.push(`### ${run.label}, repetition ${run.rep} (${run.runId})${run.machineProbe ? `, ${probeSummary(run.machineProbe)}` : ''}`, '')
    if (run.errors.length) L.push(`Run failed: \`${run.errors[0].split('\n')[0]}\``, '')
    if (run.single) L.push(singleLine(run), '')
    L.push(`Max sustainable rate: **${run.maxSustainableRate}/s**; kept up with ${run.maxKeptUpRate}/s.` +
      (run.traceBytes ? ` Trace files written: ${Math.round(run.traceBytes / 2 ** 20)} MiB.` : '') +
      (run.idle ? ` Idle, % of a core: ${Object.entries(run.idle.processes).filter(([k]) => k !== 'generator').map(([k, v]) => `${k} ${/** @type {any} */ (v).pctCore}`).join(', ')}.` : ''), '')
    L.push(`| offered | achieved | p50 | p90 | p99 | p99.9 | max | success | backlog | gates | SQL/t (KB) | commits/t | disk page reads / pages created / written per t | redo KB/t | commit lane busy | disk stalls (longest ms) | Kafka msgs/requests per t | CPU ms/t ${COMPONENTS.join('/')} | other CPU % | verdict |`)
    L.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const st of run.steps) {
      const p = st.cpu.processes
      const cpu = COMPONENTS.map((k) => (p[k] ? p[k].msPerTransfer : '–')).join('/')
      const l = st.latency
      L.push(`| ${st.offeredRate} | ${st.achievedRate} | ${n(l.p50)} | ${n(l.p90)} | ${n(l.p99)} | ${n(l.p999)} | ${n(l.max)} | ${(st.success * 100).toFixed(2)}% | ${st.backlog.growing ? 'growing' : 'flat'} (${st.backlog.growthMs} ms) | ${st.valid ? 'ok' : '**INVALID**'} | ` +
        `${n(st.sql.statementsPerTransfer)} (${kbNumber(st.sql.sqlBytesPerTransfer)}) | ${n(st.sql.commitsPerTransfer)} | ${n(st.sql.pageReadsPerTransfer)} / ${n(st.sql.pagesCreatedPerTransfer)} / ${n(st.sql.pagesWrittenPerTransfer)} | ${kbNumber(st.sql.redoBytesPerTransfer)} | ${n(st.stages?.sharedTransactions?.busyShare)} | ${st.disk ? `${st.disk.count}${st.disk.count ? ` (${st.disk.maxMs})` : ''}` : '–'} | ${n(st.kafka.perTransfer)} / ${n(st.kafka.requests?.perTransfer)} | ${cpu} | ${st.cpu.otherProcessesPctCore}${st.cpu.stealPct ? ` (steal ${st.cpu.stealPct}%)` : ''} | ${st.meetsTarget ? 'meets target' : st.reasons.join('; ')}${st.discardedContendedAttempts ? ` (measured again: ${st.discardedContendedAttempts.length} earlier attempt(s) ran while other processes used > ${s.quiet.maxOtherPctCore}% of a core)` : ''} |`)
    }
    const sm = stalledMisses(run.steps, s.targets.p99TargetMs, s.targets.minSuccess)
    if (sm.withStall) L.push('', `Of the ${sm.latencyMisses} ${sm.latencyMisses === 1 ? 'step' : 'steps'} that kept up but missed the p99 bound, ${sm.withStall} had a disk stall at least as long as the bound (*disk stalls*): the p99 of such a step is the disk's as much as the switch's.`)
    const shared = [...new Set(run.steps.flatMap((/** @type {any} */ st) => st.sql.otherClientsOnServer))]
    if (shared.length) L.push('', `Other databases had clients on the same MariaDB server during these steps (${shared.join(', ')}): the global Com_* counters include their statements, so SQL/t is an upper bound.`)
    L.push('')
  }
  return L.join('\n')
}

module.exports = { idleNote, singleLine, priorityPhrase, probeSummary, probeParagraphs, renderMarkdown }
