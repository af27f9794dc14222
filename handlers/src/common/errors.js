'use strict'

const { createFspiopError } = require('@switchyard/shared/errors')

/**
 * The `errorInformation` object of an FSPIOP error, as sent in callbacks.
 * @param {string} code catalog code or key
 * @param {string} [detail]
 * @returns {{ errorCode: string, errorDescription: string }}
 */
function errorInfo (code, detail) {
  const { errorInformation } = createFspiopError(code, detail).toErrorInformation()
  return { errorCode: errorInformation.errorCode, errorDescription: errorInformation.errorDescription }
}

module.exports = { errorInfo }
