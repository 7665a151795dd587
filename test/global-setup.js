// Jest globalSetup (jest.config.js): see test/test-schemas.js.
module.exports = require('./test-schemas').globalSetup;
