<?php
namespace App\Http;

use Illuminate\Http\Request;

const VERSION = "1.2";
define('LIMIT', 5);
$app = new Application();

/** A page. */
class PageController
{
    const TYPE = 'page';
    /** The title. */
    private ?string $title = null, $slug;
    public static int $count = 0;

    public function __construct(private Repository $repo, public int $size = 10)
    {
        $local = 1;
    }

    public function store(Request $request)
    {
        $x = 2;
        return $x;
    }
}

enum Suit: string
{
    case Hearts = 'H';
    case Spades = 'S';
}
