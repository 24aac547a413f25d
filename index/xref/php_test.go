package xref

import (
	"slices"
	"testing"
)

const phpController = `<?php

namespace App\Http\Controllers;

use App\Models\Page;
use App\Repositories\PageRepository;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\{Cache, Log as Logger};
use function App\Support\slugify;

/**
 * Pages. Cache::store(null) in a comment is no call.
 */
class PageController extends Controller implements HasMiddleware
{
    use AuthorizesRequests;

    public const PER_PAGE = 20;

    private PageRepository $pages;
    protected $mailer;

    public function __construct(private readonly ?Auditor $auditor, Mailer $mailer)
    {
        parent::__construct();
        $this->mailer = $mailer;
    }

    public function store(Request $request): RedirectResponse
    {
        Cache::store(null)->forget('pages');
        $page = new Page($request->all());
        $page->save();
        $this->pages->remember($page);
        $this->auditor->record('store');
        $this->mailer->send(slugify($page->title));
        self::flush();
        static::flush();
        Logger::info("stored {$page->id}");
        $fresh = $this->pages->latest();
        $fresh->touch();
        $copy = new \App\Models\Page();
        return redirect()->route('pages.index');
    }

    private static function flush(): void {}
}

enum Status: string
{
    case Draft = 'draft';
}

function helper(): PageController { return new PageController(); }
`

func TestPHPLaravelController(t *testing.T) {
	f := parseOK(t, "php", phpController)
	if f.Package != `App\Http\Controllers` {
		t.Errorf("package %q", f.Package)
	}
	wantImports := []string{`Page=App\Models:Page@5`, `PageRepository=App\Repositories:PageRepository@6`,
		`Request=Illuminate\Http:Request@7`, `Cache=Illuminate\Support\Facades:Cache@8`,
		`Logger=Illuminate\Support\Facades:Log@8`, `slugify=App\Support:slugify@9`}
	if got := importStrings(f); !slices.Equal(got, wantImports) {
		t.Errorf("imports %q, want %q", got, wantImports)
	}
	wantDefs(t, phpController, f,
		"class PageController <Controller,HasMiddleware,AuthorizesRequests>",
		"const PageController.PER_PAGE",
		"field PageController.pages :PageRepository",
		// untyped, but the constructor assigns it a typed parameter
		"field PageController.mailer :Mailer",
		"method PageController.__construct",
		"field PageController.auditor :Auditor", // constructor promotion
		"method PageController.store :RedirectResponse",
		"method PageController.flush",
		"enum Status",
		"const Status.Draft :Status",
		"function helper :PageController",
	)
	wantRefs(t, phpController, f,
		"25 __construct super call",
		// A facade's static call names the facade, as written: the
		// resolver maps Cache through `use` (to Illuminate, outside).
		"31 store type Cache call",
		"31 forget type Cache [store] call",
		"32 Page bare call",
		"32 all type Request call",
		"33 save type Page call",
		"34 remember self [pages] call",
		"35 record self [auditor] call",
		"36 send self [mailer] call",
		"36 slugify bare call",
		"37 flush self call",
		"38 flush self call",
		"39 info type Logger call",
		"39 id type Page",
		"41 touch self [pages.latest] call",
		`42 Page package \App\Models call`,
		// Laravel's helper is a bare function; what it returns is its.
		"43 redirect bare call",
		"43 route bare [redirect] call",
		"29 Request bare",
		"29 RedirectResponse bare",
		"14 Controller bare",
		"54 PageController bare call",
	)
	noRefs(t, phpController, f, 12, "store", "Cache")
	noRefs(t, phpController, f, 29, "store")
	noRefs(t, phpController, f, 43, "pages.index")
	checkIn(t, f)
}

func TestPHPDocblocksAndContainer(t *testing.T) {
	src := `<?php
class SongService
{
    /** @var SongRepository */
    protected $songs;

    /**
     * @param Scanner|null $scanner
     * @param array $opts
     */
    public function scan($scanner, $opts)
    {
        $scanner->run();
        $this->songs->all();
        /** @var Song $song */
        $song = $this->songs->first();
        $song->touch();
        app(Mailer::class)->send();
    }
}
`
	f := parseOK(t, "php", src)
	wantDefs(t, src, f, "class SongService", "field SongService.songs :SongRepository", "method SongService.scan")
	wantRefs(t, src, f,
		"13 run type Scanner call",
		"14 all self [songs] call",
		"17 touch type Song call",
		"18 send type Mailer call",
	)
}

func TestPHPUnknownReceiver(t *testing.T) {
	src := `<?php
function run($job, array $opts, ?Song $song) {
    $song = Song::query()->create($opts);
    $song->syncGenres();
    $job->handle();
    $x = $opts['x'];
    $x->go();
    $f = fn($a) => $a->m();
    $cb = $opts['cb'];
    $cb();
}
`
	f := parseOK(t, "php", src)
	// A typed parameter assigned a call's result keeps its declared type.
	wantRefs(t, src, f, "4 syncGenres type Song call", "5 handle unknown call", "7 go unknown call", "8 m unknown call")
	noRefs(t, src, f, 10, "cb")
}
