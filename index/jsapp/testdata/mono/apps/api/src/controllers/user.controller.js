const catchAsync = require('../utils/catchAsync');
const { userService } = require('../services');
const { User } = require('../models');

const createUser = catchAsync(async (req, res) => {
  const user = await userService.createUser(req.body);
  res.status(201).send(user);
});

const getUsers = catchAsync(async (req, res) => {
  res.send(await userService.queryUsers());
});

const getUser = catchAsync(async (req, res) => {
  res.send(await User.findById(req.params.userId));
});

const deleteUser = catchAsync(async (req, res) => {
  await userService.deleteUserById(req.params.userId);
  res.status(204).send();
});

module.exports = {
  createUser,
  getUsers,
  getUser,
  deleteUser,
};
