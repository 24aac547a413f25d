<?php

// Half-written and odd registrations: they must fall back to code, never fail the file.
Route::get($dynamic, [$controller, $method]);
Route::resource(...$args);
Route::match(['get'], )->name(
Artisan::command('inspire', function () {
    $this->comment('x');
});
