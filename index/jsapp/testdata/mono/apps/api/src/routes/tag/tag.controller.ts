import { NextFunction, Request, Response, Router } from 'express';
import auth from '../auth';
import { getTags } from './tag.service';

const router = Router();

/**
 * Get top 10 popular tags
 */
router.get('/tags', auth.optional, async (req: Request, res: Response, next: NextFunction) => {
  try {
    res.json({ tags: await getTags(req.auth?.user?.id) });
  } catch (error) {
    next(error);
  }
});

export default router;
