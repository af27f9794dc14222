'use strict'

// FSPIOP errors: the catalog of codes and the one error class built from it.
// The page for humans is docs/errors.md.

const { ERROR_CATALOG, findErrorEntry } = require('./catalog')
const { FspiopError, createFspiopError, isFspiopCode, fromErrorInformation } = require('./fspiop-error')

module.exports = {
  ERROR_CATALOG,
  findErrorEntry,
  FspiopError,
  createFspiopError,
  isFspiopCode,
  fromErrorInformation
}
