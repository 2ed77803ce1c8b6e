module.exports = require('../jest.preset.js')(__dirname, '@gateway/e2e');
