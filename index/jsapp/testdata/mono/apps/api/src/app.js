const express = require('express');
const cors = require('cors');
const routes = require('./routes/v1');
const { errorHandler } = require('./middlewares/error');
const tagRoutes = require('./routes/tag/routes');

const app = express();

app.use(cors());
app.use(express.json());
app.use('/v1', routes);
app.use(tagRoutes);
app.use(errorHandler);

app.get('/health', (req, res) => res.send('ok'));
require('./routes/legacy')(app);

module.exports = app;
