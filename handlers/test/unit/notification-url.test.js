'use strict'

const { callbackUrl, callbackHeaders, EndpointError } = require('../../src/notification/url')

const id = '01JD2X3Y4Z5A6B7C8D9E0F1G2H'

describe('callbackUrl', () => {
  test.each([
    ['PUT template', 'http://dfsp:8080/transfers/{{transferId}}', `/transfers/${id}`, `http://dfsp:8080/transfers/${id}`],
    ['error template', 'http://dfsp/cb/transfers/{{transferId}}/error', `/transfers/${id}/error`, `http://dfsp/cb/transfers/${id}/error`],
    ['template with spaces', 'https://dfsp/t/{{ transferId }}', `/transfers/${id}`, `https://dfsp/t/${id}`],
    ['POST endpoint already ending with the collection', 'http://dfsp/transfers', '/transfers', 'http://dfsp/transfers'],
    ['PUT to a bare base', 'http://dfsp', `/transfers/${id}`, `http://dfsp/transfers/${id}`],
    ['PUT to a base with a trailing slash', 'http://dfsp/api/', `/transfers/${id}`, `http://dfsp/api/transfers/${id}`],
    ['PUT to a base ending with /transfers', 'http://dfsp/transfers', `/transfers/${id}`, `http://dfsp/transfers/${id}`],
    ['error to a base ending with /transfers', 'http://dfsp/transfers/', `/transfers/${id}/error`, `http://dfsp/transfers/${id}/error`],
    ['PATCH to a base', 'http://dfsp/fsp', `/transfers/${id}`, `http://dfsp/fsp/transfers/${id}`]
  ])('%s', (_name, template, path, expected) => {
    expect(callbackUrl(template, { transferId: id, path })).toBe(expected)
  })

  test('the transfer id is URL-encoded into the template', () => {
    expect(callbackUrl('http://dfsp/transfers/{{transferId}}', { transferId: 'a/b c', path: '/transfers/x' }))
      .toBe('http://dfsp/transfers/a%2Fb%20c')
  })

  test.each([
    ['an unknown placeholder', 'http://dfsp/{{fsp}}/transfers/{{transferId}}', id, /unknown placeholder \{\{fsp\}\}/],
    ['an unknown placeholder in a base', 'http://dfsp/{{fsp}}', id, /unknown placeholder/],
    ['a template and no transfer id', 'http://dfsp/transfers/{{transferId}}', null, /needs a transferId/],
    ['not a URL', 'dfsp/transfers', id, /not a valid URL/],
    ['not http', 'ftp://dfsp/transfers', id, /not http\(s\)/]
  ])('refuses %s with an EndpointError', (_name, template, transferId, message) => {
    let thrown
    try { callbackUrl(template, { transferId, path: `/transfers/${id}` }) } catch (err) { thrown = err }
    expect(thrown).toBeInstanceOf(EndpointError)
    expect(thrown.message).toMatch(message)
    expect(thrown.retriable).toBe(false)
  })
})

describe('callbackHeaders', () => {
  test('passes the FSPIOP headers on and sets FSPIOP-URI, FSPIOP-HTTP-Method and content-length', () => {
    const body = JSON.stringify({ transferState: 'COMMITTED', note: 'é' })
    const headers = callbackHeaders({
      'FSPIOP-Source': 'payeefsp',
      'fspiop-destination': 'payerfsp',
      'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
      date: 'Thu, 21 Nov 2026 10:00:00 GMT',
      'fspiop-signature': 'sig'
    }, { method: 'PUT', path: `/transfers/${id}`, body })
    expect(headers).toEqual({
      'fspiop-source': 'payeefsp',
      'fspiop-destination': 'payerfsp',
      'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
      date: 'Thu, 21 Nov 2026 10:00:00 GMT',
      'fspiop-signature': 'sig',
      'fspiop-uri': `/transfers/${id}`,
      'fspiop-http-method': 'PUT',
      'content-length': String(Buffer.byteLength(body))
    })
  })

  test('never copies hop-by-hop headers or a stale FSPIOP-URI from the original request', () => {
    const headers = callbackHeaders({
      host: 'switch',
      connection: 'close',
      'content-length': '999',
      'transfer-encoding': 'chunked',
      'FSPIOP-URI': '/transfers',
      'fspiop-http-method': 'POST',
      'fspiop-source': 'a'
    }, { method: 'PATCH', path: `/transfers/${id}`, body: null })
    expect(headers).toEqual({ 'fspiop-source': 'a', 'fspiop-uri': `/transfers/${id}`, 'fspiop-http-method': 'PATCH', 'content-length': '0' })
  })
})
