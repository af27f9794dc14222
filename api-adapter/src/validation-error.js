'use strict'

// Schema validation failures → FSPIOP errors. The codes follow Mojaloop's
// ml-api-adapter, which validates with openapi-backend and maps the first
// ajv error by keyword (central-services-error-handling,
// createFSPIOPErrorFromOpenapiError): required → 3102, additionalProperties
// → 3103, type → 3101, anything else (pattern, enum, length, ...) → 3100.
// Descriptions name the element as a participant's developer reads it
// ("amount.amount", "path parameter id").

const { createFspiopError } = require('@switchyard/shared/errors')

/**
 * @typedef {object} SchemaError the parts of an ajv ErrorObject used here
 * @property {string} keyword
 * @property {string} instancePath JSON pointer, '' for the root
 * @property {Record<string, any>} params
 * @property {string} [message]
 * @property {{ title?: string, description?: string }} [parentSchema] present with ajv's verbose option
 */

const MAX_PATTERN_SHOWN = 64

const CODE_BY_KEYWORD = { required: 'MISSING_ELEMENT', additionalProperties: 'TOO_MANY_ELEMENTS', type: 'MALFORMED_SYNTAX' }

/**
 * "/extensionList/extension/0/key" → "extensionList.extension[0].key"
 * @param {string} pointer
 */
function toDottedPath (pointer) {
  return pointer.split('/').slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, p) => /^\d+$/.test(p) ? `${path}[${p}]` : path ? `${path}.${p}` : p, '')
}

/**
 * How the element is named in the description.
 * @param {string} dataVar 'body', 'params', 'querystring' or 'headers'
 * @param {string} path dotted path inside it ('' for the whole)
 */
function describe (dataVar, path) {
  if (dataVar === 'params') return path ? `path parameter ${path}` : 'path'
  if (dataVar === 'headers') return path ? `${path} header` : 'headers'
  if (dataVar === 'querystring') return path ? `query parameter ${path}` : 'query'
  return path || 'body'
}

/**
 * @param {SchemaError} error
 * @param {string} dataVar
 */
function toDetail (error, dataVar) {
  const path = toDottedPath(error.instancePath)
  const child = (/** @type {string} */ name) => describe(dataVar, /^\d+$/.test(name) ? `${path}[${name}]` : path ? `${path}.${name}` : name)
  switch (error.keyword) {
    case 'required':
      return child(error.params.missingProperty)
    case 'additionalProperties':
      return `${child(error.params.additionalProperty)} is not allowed`
    case 'pattern': {
      const { title, description } = error.parentSchema ?? {}
      const { pattern } = error.params
      // A long pattern would push the description past 128 characters: say it in words.
      if (title && description && pattern.length > MAX_PATTERN_SHOWN) return `${describe(dataVar, path)} must be a valid ${title}: ${description}`
      return `${describe(dataVar, path)} must match the ${title ? `${title} ` : ''}pattern ${pattern}`
    }
    case 'enum':
      return `${describe(dataVar, path)} must be one of ${error.params.allowedValues.join(', ')}`
    default:
      return `${describe(dataVar, path)} ${error.message}`
  }
}

/**
 * fastify's schemaErrorFormatter: the first error, as an FspiopError.
 *
 * @param {SchemaError[]} errors
 * @param {string} dataVar
 * @returns {import('@switchyard/shared/errors').FspiopError}
 */
function toValidationError (errors, dataVar) {
  const [error] = errors
  return createFspiopError(CODE_BY_KEYWORD[error.keyword] || 'VALIDATION_ERROR', toDetail(error, dataVar))
}

module.exports = { toValidationError, toDottedPath }
