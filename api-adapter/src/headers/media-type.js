'use strict'

// FSPIOP version negotiation (API Definition v1.1, section 3.3.4): a request
// names the version of its body in Content-Type and the versions it can read
// in Accept, both as application/vnd.interoperability.<resource>+json;version=X.
// Syntax follows Mojaloop's central-services-shared header validation
// (Content-Type needs major.minor; Accept may list several media ranges and
// may give only a major version, or none), with optional whitespace around
// ";" and after "," and case-insensitive names, as RFC 9110 allows.

/** The versions this hub reads and writes, lowest first. */
const SUPPORTED_VERSIONS = Object.freeze(['1.0', '1.1', '2.0'])

/**
 * @typedef {{ major: number | null, minor: number | null }} VersionRange
 *   major null: any version; minor null: any minor version of major
 */

/** @param {string} resource */
const mediaType = (resource) => `application/vnd\\.interoperability\\.${resource}\\+json`

/** @type {Map<string, { accept: RegExp, contentType: RegExp }>} compiled once per resource */
const patternsByResource = new Map()

/**
 * The Accept (one media range) and Content-Type patterns of a resource.
 * Neither has the g or y flag, so exec() keeps no state between calls.
 * @param {string} resource
 */
function patternsFor (resource) {
  let patterns = patternsByResource.get(resource)
  if (!patterns) {
    patterns = {
      accept: new RegExp(`^${mediaType(resource)}(?:\\s*;\\s*version\\s*=\\s*(\\d+)(?:\\.(\\d+))?)?$`, 'i'),
      contentType: new RegExp(`^${mediaType(resource)}\\s*;\\s*version\\s*=\\s*(\\d+)\\.(\\d+)$`, 'i')
    }
    patternsByResource.set(resource, patterns)
  }
  return patterns
}

/**
 * @param {string} resource e.g. 'transfers'
 * @param {string} header the Accept header
 * @returns {VersionRange[] | null} the ranges asked for; null if malformed
 */
function parseAccept (resource, header) {
  const single = patternsFor(resource).accept
  const ranges = []
  for (const part of header.split(',')) {
    const match = single.exec(part.trim())
    if (!match) return null
    ranges.push({
      major: match[1] === undefined ? null : Number(match[1]),
      minor: match[2] === undefined ? null : Number(match[2])
    })
  }
  return ranges
}

/**
 * @param {string} resource
 * @param {string} header the Content-Type header
 * @returns {string | null} the version as "major.minor"; null if malformed
 */
function parseContentType (resource, header) {
  const match = patternsFor(resource).contentType.exec(header.trim())
  return match ? `${Number(match[1])}.${Number(match[2])}` : null
}

/**
 * The highest supported version that one of the ranges accepts.
 *
 * @param {VersionRange[]} ranges
 * @param {readonly string[]} [supported]
 * @returns {string | undefined}
 */
function negotiateVersion (ranges, supported = SUPPORTED_VERSIONS) {
  const accepts = (/** @type {string} */ version) => {
    const [major, minor] = version.split('.').map(Number)
    return ranges.some((r) => (r.major === null || r.major === major) && (r.minor === null || r.minor === minor))
  }
  return [...supported].reverse().find(accepts)
}

/**
 * The supported versions as an FSPIOP extensionList, one extension per
 * version with key = major and value = minor: what the API definition
 * (section 3.3.4.3) asks a 406 error to carry, in the shape Mojaloop sends.
 *
 * @param {readonly string[]} [supported]
 * @returns {{ extension: Array<{ key: string, value: string }> }}
 */
function toVersionExtensionList (supported = SUPPORTED_VERSIONS) {
  return {
    extension: supported.map((version) => {
      const [key, value] = version.split('.')
      return { key, value }
    })
  }
}

module.exports = { SUPPORTED_VERSIONS, parseAccept, parseContentType, negotiateVersion, toVersionExtensionList }
