<?php

namespace App\Jobs;

use Illuminate\Contracts\Queue\ShouldQueue;

class SendInvoice implements ShouldQueue
{
    public function handle(): void
    {
    }
}
