module.exports.User = require('./user.model');
module.exports.Order = require('./order.model');
