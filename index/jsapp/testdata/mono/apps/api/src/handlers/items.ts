import { Request, Response } from 'express';

export async function listItems(req: Request, res: Response) {
  res.json([]);
}

export const showItem = async (req: Request, res: Response) => {
  res.json({ id: req.params.id });
};
