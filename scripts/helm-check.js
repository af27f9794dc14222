#!/usr/bin/env node
'use strict'

// The chart against the real Helm: `npm run helm:check`.
//
// The unit tests render helm/switchyard with helm/render.js, because a helm
// binary is not something a fresh machine has. This script checks that
// stand-in against the reference: it builds Helm from the Go module proxy
// (once, into the stack's cache; a few minutes the first time), then, for the
// default values and every ci/*.yaml, runs `helm lint --strict` and `helm
// template` and compares every rendered object and NOTES.txt with
// render.js's. The admin token Secret's data is left out of the comparison:
// it is random per render. CI runs it after the tests (.ci/run).

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { isDeepStrictEqual } = require('node:util')
const YAML = require('yaml')
const { loadConfig, childEnv } = require('../shared/src/config')
const { stackPaths } = require('./stack/paths')
const { renderChart } = require('../helm/render')

const HELM_VERSION = 'v3.16.3'
const root = path.resolve(__dirname, '..')
const CHART = path.join(root, 'helm', 'switchyard')
const RELEASE = 'rel'

const say = (/** @type {string} */ m) => console.log(`[helm-check] ${m}`)

/** The pinned helm binary, built with `go install` when missing. @returns {string} */
function ensureHelm () {
  const dir = path.join(stackPaths(loadConfig()).cache, `helm-${HELM_VERSION}`)
  const bin = path.join(dir, 'helm')
  if (fs.existsSync(bin)) return bin
  say(`building Helm ${HELM_VERSION} from the Go module proxy into ${path.relative(root, dir)} (once; a few minutes)`)
  fs.mkdirSync(dir, { recursive: true })
  try {
    execFileSync('go', ['install', `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
      stdio: 'inherit',
      env: childEnv({ GOBIN: dir, CGO_ENABLED: '0' })
    })
  } catch (err) {
    const missing = /** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT'
    throw new Error(missing ? `Go is needed to build Helm ${HELM_VERSION} (or put a helm ${HELM_VERSION} binary at ${bin})` : `building Helm failed: ${/** @type {Error} */ (err).message}`)
  }
  return bin
}

/** @param {any} object @returns {string} kind/name, how objects are matched */
const idOf = (object) => `${object.kind}/${object.metadata && object.metadata.name}`

/** The comparable form of an object: a generated token's value is random per render. @param {any} object */
function comparable (object) {
  if (object.kind === 'Secret' && object.metadata.name.endsWith('-admin-token')) return { ...object, data: '<random>' }
  return object
}

/**
 * A copy of the chart whose NOTES.txt is rendered as a ConfigMap: `helm
 * template` leaves NOTES out, and `helm install --dry-run` needs a cluster.
 * @returns {string} the copy's directory
 */
function chartWithNotes () {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'switchyard-helm-check-'))
  const copy = path.join(dir, 'switchyard')
  fs.cpSync(CHART, copy, { recursive: true })
  const notes = path.join(copy, 'templates', 'NOTES.txt')
  fs.writeFileSync(path.join(copy, 'templates', '_helm_check_notes.tpl'), `{{- define "helmCheck.notes" -}}\n${fs.readFileSync(notes, 'utf8')}{{- end -}}\n`)
  fs.writeFileSync(path.join(copy, 'templates', 'helm-check-notes.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: helm-check-notes\ndata:\n  notes: {{ include "helmCheck.notes" . | quote }}\n')
  fs.rmSync(notes)
  return copy
}

/**
 * @param {string} helm
 * @param {string} notesChart chartWithNotes()
 * @param {string | null} valuesFile relative to the chart, or null for the defaults
 * @returns {string[]} what differs
 */
function checkOne (helm, notesChart, valuesFile) {
  const args = valuesFile ? ['-f', path.join(CHART, valuesFile)] : []
  execFileSync(helm, ['lint', '--strict', CHART, ...args], { stdio: 'pipe' })
  const text = execFileSync(helm, ['template', RELEASE, notesChart, ...args], { encoding: 'utf8' })
  const rendered = YAML.parseAllDocuments(text).map((d) => d.toJS()).filter(Boolean)
  const notesObject = rendered.find((o) => idOf(o) === 'ConfigMap/helm-check-notes')
  const fromHelm = rendered.filter((o) => o !== notesObject)
  const values = valuesFile ? YAML.parse(fs.readFileSync(path.join(CHART, valuesFile), 'utf8')) : {}
  const ours = renderChart({ values, release: RELEASE })
  const problems = []
  const byId = new Map(ours.objects.map((o) => [idOf(o), o]))
  for (const object of fromHelm) {
    const mine = byId.get(idOf(object))
    byId.delete(idOf(object))
    if (!mine) problems.push(`${idOf(object)}: rendered by helm, not by render.js`)
    else if (!isDeepStrictEqual(comparable(object), comparable(mine))) problems.push(`${idOf(object)} differs:\n--- helm\n${YAML.stringify(object)}--- render.js\n${YAML.stringify(mine)}`)
  }
  for (const id of byId.keys()) problems.push(`${id}: rendered by render.js, not by helm`)
  const helmNotes = notesObject ? notesObject.data.notes : ''
  if (helmNotes.trim() !== ours.notes.trim()) problems.push(`NOTES.txt differs:\n--- helm\n${helmNotes}\n--- render.js\n${ours.notes}`)
  return problems
}

function main () {
  const helm = ensureHelm()
  say(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' }).trim())
  const valueFiles = [null, ...fs.readdirSync(path.join(CHART, 'ci')).filter((f) => f.endsWith('.yaml')).sort().map((f) => `ci/${f}`)]
  const notesChart = chartWithNotes()
  let failed = 0
  for (const file of valueFiles) {
    const problems = checkOne(helm, notesChart, file)
    const label = file || 'default values'
    if (problems.length) {
      failed++
      console.error(`[helm-check] ${label}: ${problems.length} difference(s)\n${problems.join('\n')}`)
    } else {
      say(`${label}: helm lint --strict passed; helm template and render.js agree`)
    }
  }
  fs.rmSync(path.dirname(notesChart), { recursive: true, force: true })
  if (failed) process.exit(1)
}

if (require.main === module) main()
