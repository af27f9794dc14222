'use strict'

// Writes a campaign's results: <stamp>.json (everything) and <stamp>.md (a
// summary, see report-md.js) with its charts as <stamp>-*.svg next to it.

const fs = require('node:fs')
const path = require('node:path')
const { renderMarkdown } = require('./report-md')
const { charts } = require('./charts')

/** @param {any} result @param {string} dir */
function writeResults (result, dir) {
  fs.mkdirSync(dir, { recursive: true })
  const stamp = result.startedAt.replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z')
  const base = path.join(dir, stamp)
  const svgs = charts(result)
  /** @type {Record<string, string>} */
  const svgFiles = {}
  for (const [name, svg] of Object.entries(svgs)) {
    const file = `${stamp}-${name}.svg`
    fs.writeFileSync(path.join(dir, file), svg)
    svgFiles[name] = file
  }
  fs.writeFileSync(`${base}.json`, JSON.stringify(result, null, 1) + '\n')
  fs.writeFileSync(`${base}.md`, renderMarkdown(result, svgFiles))
  return { json: `${base}.json`, md: `${base}.md`, svgs: Object.values(svgFiles).map((f) => path.join(dir, f)) }
}

module.exports = { writeResults }
