'use strict'

// Opens the HTML gap report in a real browser (headless Chromium from the
// Debian package, installed here when missing) and checks what rendered:
// every span a row with a visible bar, and the summary table.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { makeTrace, readBack, writeTrace } = require('../fixtures/make-trace')
const { main } = require('../../src/analyze/cli')
const { ensureChromium, dumpDom, screenshot } = require('../../src/analyze/chromium')

const INSTALL_TIMEOUT_MS = 20 * 60 * 1000

/** @type {string} */
let chromium
beforeAll(async () => {
  chromium = await ensureChromium({ say: (m) => console.log(`[chromium] ${m}`) })
}, INSTALL_TIMEOUT_MS)

const isEventSpan = (s) => s.kind === 'SERVER' || s.kind === 'CONSUMER' || (s.kind === 'CLIENT' && s.attributes['switchyard.stage'] === 'callback')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gaps-browser-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

test('the waterfall renders one visible bar per span, below the summary table', async () => {
  const { spans, transferIds } = makeTrace()
  writeTrace(path.join(dir, 'traces'), spans)
  const html = path.join(dir, 'gaps.html')
  const out = { text: '', write (s) { this.text += s } }
  expect(await main([path.join(dir, 'traces'), '--top', String(transferIds.length), '--html', html], { stdout: out, stderr: out })).toBe(0)

  const dom = await dumpDom(chromium, html, { userDataDir: path.join(dir, 'profile') })
  // Stage spans are the batch spans' message links, read back as the report reads them.
  const expected = readBack(spans).filter(isEventSpan).length
  expect(expected).toBe(transferIds.length * 12)
  const rows = dom.match(/<div class="row[^"]*"[^>]*>/g) || []
  expect(rows).toHaveLength(expected)
  const widths = rows.map((r) => Number((/data-bar-px="([\d.]+)"/.exec(r) || [])[1]))
  expect(widths.filter((w) => w > 0)).toHaveLength(expected)
  expect(dom).toContain(`data-rendered-rows="${expected}"`)
  expect(dom).toMatch(/<table class="summary">/)
  expect(dom.match(/<section class="waterfall"/g)).toHaveLength(transferIds.length)
  // The slowest transfer's 41 ms wait for its commit is drawn to scale:
  // the gap before its commit is far wider than the commit's own bar.
  const slow = dom.slice(dom.indexOf(`data-transfer="${transferIds[3]}"`))
  expect(slow).toMatch(/data-label="position commit"[^>]*>.*?<div class="gap" style="[^"]*width:58\.57\d*%/s)

  const png = await screenshot(chromium, html, path.join(dir, 'waterfall.png'), { userDataDir: path.join(dir, 'profile') })
  const bytes = fs.readFileSync(png)
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
  // A blank 1400×900 page compresses to a few kB; the report is far more.
  expect(bytes.length).toBeGreaterThan(50000)
  expect(bytes.readUInt32BE(16)).toBe(1400)
  expect(bytes.readUInt32BE(20)).toBe(900)
}, 120000)
